import { AnnIndex, type AnnSettings, type VectorHit } from './ann-index.js';
import { VectorMatrix } from './vector-matrix.js';

/**
 * The vector side of one agent's index: every vector in a contiguous matrix (exact cosine by the
 * WebAssembly kernel) and, from `settings.minChunks` vectors on, an HNSW graph over them.
 *
 * The graph is built in the background, in row order, in slices of at most `sliceMs` on the event
 * loop (a 100k-vector build takes tens of seconds; one search never waits for it). Rows
 * `[0, indexed)` are in the graph, the rest are not yet: a search asks the graph for the first part
 * and scans the rest exactly, then merges. So a fresh or growing index answers at once, exactly
 * where the graph does not reach yet, and every search is on the ANN path alone once it caught up.
 *
 * Removal drops rows from the matrix (order kept, so the indexed rows stay a prefix) and leaves
 * tombstones in the graph; when tombstones outnumber half the live vectors, or the vectors fall
 * below `minChunks`, the graph is dropped (and rebuilt when still wanted).
 */
export class VectorIndex {
  private readonly matrix: VectorMatrix;
  /** The chunk key of each matrix row. */
  private rowKeys: number[] = [];
  private ann: AnnIndex | undefined;
  /** Rows `[0, indexed)` are in `ann`. */
  private indexed = 0;
  private building: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly dims: number,
    private readonly settings: AnnSettings,
  ) {
    this.matrix = new VectorMatrix(dims);
  }

  get rows(): number {
    return this.matrix.rows;
  }

  /** Rows the ANN graph covers; equal to `rows` when every search takes the ANN path alone. */
  get annRows(): number {
    return this.indexed;
  }

  /** Whether the vectors are many enough for an ANN graph. */
  get wantsAnn(): boolean {
    return this.rows > 0 && this.rows >= this.settings.minChunks;
  }

  /** Appends vectors (each `dims` long) for the chunks `keys`; the graph catches up in the background. */
  append(keys: number[], vectors: Float32Array[]): void {
    this.matrix.append(vectors);
    this.rowKeys.push(...keys);
    this.schedule();
  }

  /** Forgets the vectors of the given chunk keys. */
  remove(gone: Set<number>): void {
    const removedFromAnn: number[] = [];
    let indexedKept = 0;
    const keys = this.rowKeys;
    this.matrix.retain((row) => {
      const keep = !gone.has(keys[row]!);
      if (row < this.indexed) {
        if (keep) indexedKept++;
        else removedFromAnn.push(keys[row]!);
      }
      return keep;
    });
    this.rowKeys = keys.filter((key) => !gone.has(key));
    this.indexed = indexedKept;
    this.ann?.remove(removedFromAnn);
    if (this.ann !== undefined && (!this.wantsAnn || this.ann.tombstones > this.ann.size / 2)) this.dropAnn();
    this.schedule();
  }

  /** The `n` rows most similar to `query` (unit length), best first: the graph where built, exact elsewhere. */
  search(query: Float32Array, n: number): VectorHit[] {
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, the index ${this.dims}`);
    const fromGraph = this.ann !== undefined && this.indexed > 0 ? this.ann.search(query, n) : [];
    if (this.indexed === this.rows) return fromGraph;
    const scanned = this.scan(query, n, this.indexed);
    if (fromGraph.length === 0) return scanned;
    return [...fromGraph, ...scanned].sort((a, b) => b.score - a.score).slice(0, n);
  }

  /** The exact `n` best rows from `fromRow` on (a full scan when 0), best first. */
  scan(query: Float32Array, n: number, fromRow = 0): VectorHit[] {
    const scores = this.matrix.scores(query, fromRow);
    return topRows(scores, n).map((i) => ({ key: this.rowKeys[fromRow + i]!, score: scores[i]! }));
  }

  /** Resolves once the graph covers every row (at once when no graph is wanted). */
  async settled(): Promise<void> {
    while (this.building !== undefined) await this.building;
  }

  /** Brings the graph up to date now, blocking (benchmarks). */
  buildNow(): void {
    this.extend(Infinity);
  }

  /** Stops background building (the index is being dropped). */
  close(): void {
    this.closed = true;
  }

  private schedule(): void {
    if (this.building !== undefined || this.closed || !this.wantsAnn || this.indexed === this.rows) return;
    this.building = new Promise<void>((resolve) => {
      const step = (): void => {
        if (!this.closed && this.wantsAnn && this.extend(this.settings.sliceMs)) {
          setImmediate(step);
          return;
        }
        this.building = undefined;
        resolve();
      };
      setImmediate(step);
    });
  }

  /** Adds rows to the graph for up to `budgetMs`; true when rows remain. */
  private extend(budgetMs: number): boolean {
    if (!this.wantsAnn) return false;
    this.ann ??= new AnnIndex(this.dims, this.settings);
    const start = performance.now();
    while (this.indexed < this.rows) {
      this.ann.add(this.rowKeys[this.indexed]!, this.matrix.row(this.indexed));
      this.indexed++;
      if ((this.indexed & 7) === 0 && performance.now() - start >= budgetMs) break;
    }
    return this.indexed < this.rows;
  }

  private dropAnn(): void {
    this.ann = undefined;
    this.indexed = 0;
  }
}

/** Indexes of the `n` highest scores, best first (one pass, small sorted buffer). */
export function topRows(scores: Float32Array, n: number): number[] {
  const rows: number[] = [];
  const vals: number[] = [];
  for (let r = 0; r < scores.length; r++) {
    const s = scores[r]!;
    if (rows.length === n && s <= vals[n - 1]!) continue;
    let i = rows.length === n ? n - 1 : rows.length;
    while (i > 0 && vals[i - 1]! < s) {
      vals[i] = vals[i - 1]!;
      rows[i] = rows[i - 1]!;
      i--;
    }
    vals[i] = s;
    rows[i] = r;
  }
  return rows;
}
