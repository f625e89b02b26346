/**
 * A minimal GGUF v3 writer (the llama.cpp model file format), enough for the test fixture that
 * scripts/make-tiny-gguf.ts builds: a header, typed key/value metadata, tensor infos and the tensor
 * data, each tensor aligned to `general.alignment` (32 bytes). f32 tensors only.
 *
 * Layout (all little-endian): "GGUF", u32 version, u64 tensor count, u64 metadata count, the
 * metadata (key string, u32 type, value), the tensor infos (name, u32 dims, u64 × dims, u32 type,
 * u64 offset into the data section), padding, the data section.
 */

export const ggufAlignment = 32;

const valueType = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
const ggmlTypeF32 = 0;

/** A metadata value with its GGUF type (numbers are ambiguous in JavaScript, so the type is explicit). */
export type GgufValue =
  | { type: 'u32' | 'i32' | 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; of: 'string'; value: readonly string[] }
  | { type: 'array'; of: 'i32'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: dims[0] is the contiguous one (a matrix's row length). */
  dims: readonly number[];
  data: Float32Array;
}

/** Appends little-endian values to a growing list of chunks. */
class ByteSink {
  private readonly chunks: Buffer[] = [];
  length = 0;

  bytes(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }

  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }

  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.bytes(b);
  }

  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }

  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }

  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }

  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.bytes(Buffer.alloc(pad));
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  sink.u32(valueType[v.type]);
  switch (v.type) {
    case 'u32':
      sink.u32(v.value);
      return;
    case 'i32':
      sink.i32(v.value);
      return;
    case 'f32':
      sink.f32(v.value);
      return;
    case 'bool':
      sink.bytes(Buffer.from([v.value ? 1 : 0]));
      return;
    case 'string':
      sink.string(v.value);
      return;
    case 'array':
      sink.u32(valueType[v.of]);
      sink.u64(v.value.length);
      if (v.of === 'string') for (const s of v.value) sink.string(s);
      else for (const n of v.value) sink.i32(n);
      return;
  }
}

/** The whole file as one buffer (the fixture is a few hundred kilobytes). */
export function encodeGguf(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const head = new ByteSink();
  head.bytes(Buffer.from('GGUF', 'ascii'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.size + 1);
  head.string('general.alignment');
  writeValue(head, { type: 'u32', value: ggufAlignment });
  for (const [key, value] of metadata) {
    head.string(key);
    writeValue(head, value);
  }

  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new Error(`${t.name}: dims hold ${count} values, data has ${t.data.length}`);
    offsets.push(offset);
    offset += Math.ceil(t.data.byteLength / ggufAlignment) * ggufAlignment;
  }
  tensors.forEach((t, i) => {
    head.string(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(ggmlTypeF32);
    head.u64(offsets[i] ?? 0);
  });
  head.padTo(ggufAlignment);

  const data = new ByteSink();
  for (const t of tensors) {
    data.bytes(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    data.padTo(ggufAlignment);
  }
  return Buffer.concat([head.toBuffer(), data.toBuffer()]);
}
