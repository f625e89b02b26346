import { dotKernel, newWasmMemory, strideFor, wasmPageBytes, type DotFn, type WasmMemory } from './dot-kernel.js';

/**
 * Rows of unit-length vectors in one contiguous block of WebAssembly memory, scored against a
 * query by the SIMD dot-product kernel (cosine similarity, since rows and query are unit length).
 * Memory layout: [query][rows × stride][scores]. Appending grows it; removing rebuilds it smaller.
 */
export class VectorMatrix {
  readonly stride: number;
  private memory!: WasmMemory;
  private dot!: DotFn;
  private capacity = 0;
  private count = 0;

  constructor(
    readonly dims: number,
    initialCapacity = 1024,
  ) {
    this.stride = strideFor(dims);
    this.allocate(initialCapacity);
  }

  get rows(): number {
    return this.count;
  }

  /** Appends vectors (each `dims` long); returns the first new row number. */
  append(vectors: Float32Array[]): number {
    const first = this.count;
    if (first + vectors.length > this.capacity) this.grow(Math.max(this.capacity * 2, first + vectors.length));
    const f = new Float32Array(this.memory.buffer);
    let at = this.rowOffset(first) / 4;
    for (const v of vectors) {
      if (v.length !== this.dims) throw new Error(`vector has ${v.length} dimensions, the index ${this.dims}`);
      f.set(v, at);
      at += this.stride;
    }
    this.count += vectors.length;
    return first;
  }

  /** Keeps the rows for which `keep(row)` is true, in order; returns old row → new row (-1 when dropped). */
  retain(keep: (row: number) => boolean): Int32Array {
    const map = new Int32Array(this.count).fill(-1);
    const old = new Float32Array(this.memory.buffer);
    const oldOffset = this.rowOffset(0) / 4;
    const kept: number[] = [];
    for (let r = 0; r < this.count; r++) if (keep(r)) kept.push(r);
    const oldRows = this.count;
    const snapshot = old.slice(oldOffset, oldOffset + oldRows * this.stride);
    this.allocate(Math.max(1024, kept.length));
    const f = new Float32Array(this.memory.buffer);
    kept.forEach((r, i) => {
      f.set(snapshot.subarray(r * this.stride, (r + 1) * this.stride), this.rowOffset(i) / 4);
      map[r] = i;
    });
    this.count = kept.length;
    return map;
  }

  /** A view of one row (valid until the matrix changes). */
  row(row: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.rowOffset(row), this.dims);
  }

  /**
   * Cosine similarity of `query` with every row from `fromRow` on (index i is row fromRow + i);
   * the array is reused by the next call.
   */
  scores(query: Float32Array, fromRow = 0): Float32Array {
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, the index ${this.dims}`);
    const f = new Float32Array(this.memory.buffer);
    f.fill(0, 0, this.stride);
    f.set(query, 0);
    const out = this.scoresOffset();
    const n = Math.max(0, this.count - fromRow);
    this.dot(this.rowOffset(fromRow), 0, out, n, this.stride * 4);
    return new Float32Array(this.memory.buffer, out, n);
  }

  /** Bytes of memory held. */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  private rowOffset(row: number): number {
    return (this.stride + row * this.stride) * 4;
  }

  private scoresOffset(): number {
    return this.rowOffset(this.capacity);
  }

  private needed(capacity: number): number {
    return (this.stride + capacity * this.stride + capacity) * 4;
  }

  private allocate(capacity: number): void {
    this.capacity = capacity;
    this.memory = newWasmMemory(this.needed(capacity));
    this.dot = dotKernel(this.memory);
  }

  private grow(capacity: number): void {
    const more = this.needed(capacity) - this.memory.buffer.byteLength;
    if (more > 0) this.memory.grow(Math.ceil(more / wasmPageBytes));
    this.capacity = capacity;
  }
}
