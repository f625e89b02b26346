import MiniSearch from 'minisearch';
import type { Chunk, DocumentRecord, SearchHit } from '../records/document.js';
import { VectorMatrix } from './vector-matrix.js';

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
export const rrfK = 60;
/** Candidates taken from each ranking before fusion. */
const candidates = 100;

const stopWords = new Set(
  'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** Lowercased terms without common English stop words. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t.length === 0 || stopWords.has(t) ? null : t;
}

interface Entry {
  key: number;
  chunk: Chunk;
  documentName: string;
  /** Row in the vector matrix; -1 when the chunk has no usable vector. */
  row: number;
}

export interface SearchOptions {
  k: number;
  /** Minimum fused score (0..1) a hit needs. */
  minScore: number;
}

/**
 * One agent's searchable chunks: a MiniSearch (BM25) index over their text and a vector matrix of
 * their embeddings, fused by reciprocal rank. Scores are RRF sums scaled by 1/(2/(k+1)), so a chunk
 * ranked first by both gets 1.0 and one ranked first by only one gets about 0.5.
 */
export class AgentIndex {
  /** The agent's RAG version this index reflects. */
  version = -1;
  private readonly lexical = new MiniSearch<{ key: number; text: string }>({
    idField: 'key',
    fields: ['text'],
    processTerm,
  });
  private readonly entries = new Map<number, Entry>();
  private readonly byRow: Entry[] = [];
  private readonly documents = new Map<string, number[]>();
  private matrix: VectorMatrix | undefined;
  private nextKey = 1;

  get chunkCount(): number {
    return this.entries.size;
  }

  get vectorDims(): number | undefined {
    return this.matrix?.dims;
  }

  documentIds(): string[] {
    return [...this.documents.keys()];
  }

  hasDocument(id: string): boolean {
    return this.documents.has(id);
  }

  /** Adds a document's chunks; vectors of another length than the index's are left out (BM25 only). */
  addDocument(document: Pick<DocumentRecord, 'id' | 'name'>, chunks: Chunk[], vectors: (Float32Array | null)[]): void {
    if (this.documents.has(document.id)) this.removeDocument(document.id);
    const keys: number[] = [];
    const withVectors: Float32Array[] = [];
    const newEntries: Entry[] = [];
    chunks.forEach((chunk, i) => {
      const v = vectors[i] ?? null;
      this.matrix ??= v === null ? undefined : new VectorMatrix(v.length);
      const usable = v !== null && this.matrix !== undefined && v.length === this.matrix.dims;
      const entry: Entry = { key: this.nextKey++, chunk, documentName: document.name, row: usable ? -2 : -1 };
      if (usable) withVectors.push(v);
      newEntries.push(entry);
      keys.push(entry.key);
    });
    if (this.matrix !== undefined && withVectors.length > 0) {
      let row = this.matrix.append(withVectors);
      for (const e of newEntries)
        if (e.row === -2) {
          e.row = row++;
          this.byRow[e.row] = e;
        }
    }
    for (const e of newEntries) this.entries.set(e.key, e);
    this.lexical.addAll(newEntries.map((e) => ({ key: e.key, text: e.chunk.text })));
    this.documents.set(document.id, keys);
  }

  removeDocument(id: string): void {
    const keys = this.documents.get(id);
    if (keys === undefined) return;
    const gone = new Set(keys);
    for (const key of keys) {
      this.lexical.discard(key);
      this.entries.delete(key);
    }
    this.documents.delete(id);
    if (this.matrix === undefined) return;
    const matrix = this.matrix;
    const rows = this.byRow.slice(0, matrix.rows);
    const map = matrix.retain((row) => !gone.has(rows[row]!.key));
    this.byRow.length = 0;
    rows.forEach((e, oldRow) => {
      const next = map[oldRow]!;
      if (next < 0) return;
      e.row = next;
      this.byRow[next] = e;
    });
  }

  /**
   * Ranks chunks for a query by BM25 and, when `queryVector` is given, by cosine similarity, and
   * fuses both with reciprocal rank fusion. Ties keep BM25 order.
   */
  search(query: string, queryVector: Float32Array | null, options: SearchOptions): SearchHit[] {
    type Fused = {
      entry: Entry;
      bm25: number | null;
      bm25Rank: number | null;
      vector: number | null;
      vectorRank: number | null;
      rrf: number;
    };
    const fused = new Map<number, Fused>();
    const at = (entry: Entry): Fused => {
      let f = fused.get(entry.key);
      if (f === undefined) {
        f = { entry, bm25: null, bm25Rank: null, vector: null, vectorRank: null, rrf: 0 };
        fused.set(entry.key, f);
      }
      return f;
    };
    const lexical = this.lexical.search(query).slice(0, candidates);
    lexical.forEach((r, i) => {
      const entry = this.entries.get(r.id as number);
      if (entry === undefined) return;
      const f = at(entry);
      f.bm25 = r.score;
      f.bm25Rank = i + 1;
      f.rrf += 1 / (rrfK + i + 1);
    });
    if (
      queryVector !== null &&
      this.matrix !== undefined &&
      this.matrix.rows > 0 &&
      queryVector.length === this.matrix.dims
    ) {
      const scores = this.matrix.scores(queryVector);
      topRows(scores, candidates).forEach((row, i) => {
        const f = at(this.byRow[row]!);
        f.vector = scores[row]!;
        f.vectorRank = i + 1;
        f.rrf += 1 / (rrfK + i + 1);
      });
    }
    const scale = 2 / (rrfK + 1);
    return [...fused.values()]
      .map((f) => ({ f, score: f.rrf / scale }))
      .filter((x) => x.score >= options.minScore)
      .sort((a, b) => b.score - a.score || (a.f.bm25Rank ?? Infinity) - (b.f.bm25Rank ?? Infinity))
      .slice(0, options.k)
      .map(({ f, score }) => ({
        chunk_id: f.entry.chunk.id,
        document_id: f.entry.chunk.document_id,
        document_name: f.entry.documentName,
        text: f.entry.chunk.text,
        start: f.entry.chunk.start,
        end: f.entry.chunk.end,
        score: round(score),
        bm25: f.bm25 === null ? null : round(f.bm25),
        vector: f.vector === null ? null : round(f.vector),
        bm25_rank: f.bm25Rank,
        vector_rank: f.vectorRank,
      }));
  }
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Rows of the `n` highest scores, best first (one pass, small sorted buffer). */
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
