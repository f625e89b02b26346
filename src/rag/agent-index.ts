import type { Chunk, DocumentRecord, SearchHit } from '../schemas/document.js';
import { defaultAnnSettings, type AnnSettings } from './ann-index.js';
import { LexicalIndex } from './lexical-index.js';
import { VectorIndex } from './vector-index.js';

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
export const rrfK = 60;
/** Candidates taken from each ranking before fusion. */
const candidates = 100;

interface Entry {
  key: number;
  chunk: Chunk;
  documentName: string;
}

export interface SearchOptions {
  k: number;
  /** Minimum fused score (0..1) a hit needs. */
  minScore: number;
  /** Scans every vector even where the ANN graph is built (recall checks and benchmarks). */
  exact?: boolean;
}

/**
 * One agent's searchable chunks: a BM25 index over their text (`LexicalIndex`) and a `VectorIndex`
 * of their embeddings (exact scan, or an HNSW graph from `AnnSettings.minChunks`), fused by
 * reciprocal rank. Scores are RRF sums scaled by 1/(2/(k+1)), so a chunk ranked first by both gets
 * 1.0 and one ranked first by only one gets about 0.5.
 */
export class AgentIndex {
  /** The agent's RAG version this index reflects. */
  version = -1;
  private readonly lexical = new LexicalIndex();
  private readonly entries = new Map<number, Entry>();
  private readonly documents = new Map<string, number[]>();
  private vectors: VectorIndex | undefined;
  private nextKey = 1;

  constructor(private readonly ann: AnnSettings = defaultAnnSettings) {}

  get chunkCount(): number {
    return this.entries.size;
  }

  get vectorDims(): number | undefined {
    return this.vectors?.dims;
  }

  /** Chunks with a vector, and how many of them the ANN graph covers (0 below `minChunks`). */
  get vectorStats(): { rows: number; annRows: number } {
    return { rows: this.vectors?.rows ?? 0, annRows: this.vectors?.annRows ?? 0 };
  }

  /** Brings the ANN graph up to date now, blocking the thread (benchmarks). */
  buildAnnNow(): void {
    this.vectors?.buildNow();
  }

  /** Resolves once the ANN graph covers every vector (at once when none is wanted). */
  settled(): Promise<void> {
    return this.vectors?.settled() ?? Promise.resolve();
  }

  /** Stops background graph building (the index is being dropped). */
  close(): void {
    this.vectors?.close();
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
    const newEntries: Entry[] = [];
    const vectorKeys: number[] = [];
    const usable: Float32Array[] = [];
    chunks.forEach((chunk, i) => {
      const entry: Entry = { key: this.nextKey++, chunk, documentName: document.name };
      newEntries.push(entry);
      const v = vectors[i] ?? null;
      if (v === null) return;
      this.vectors ??= new VectorIndex(v.length, this.ann);
      if (v.length !== this.vectors.dims) return;
      vectorKeys.push(entry.key);
      usable.push(v);
    });
    if (usable.length > 0) this.vectors!.append(vectorKeys, usable);
    for (const e of newEntries) this.entries.set(e.key, e);
    for (const e of newEntries) this.lexical.add(e.key, e.chunk.text);
    this.documents.set(
      document.id,
      newEntries.map((e) => e.key),
    );
  }

  removeDocument(id: string): void {
    const keys = this.documents.get(id);
    if (keys === undefined) return;
    for (const key of keys) this.entries.delete(key);
    this.lexical.remove(keys);
    this.documents.delete(id);
    this.vectors?.remove(new Set(keys));
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
    this.lexical.search(query, candidates).forEach((r, i) => {
      const entry = this.entries.get(r.key);
      if (entry === undefined) return;
      const f = at(entry);
      f.bm25 = r.score;
      f.bm25Rank = i + 1;
      f.rrf += 1 / (rrfK + i + 1);
    });
    if (queryVector !== null && this.vectors !== undefined && queryVector.length === this.vectors.dims) {
      (options.exact === true
        ? this.vectors.scan(queryVector, candidates)
        : this.vectors.search(queryVector, candidates)
      ).forEach((hit, i) => {
        const entry = this.entries.get(hit.key);
        if (entry === undefined) return;
        const f = at(entry);
        f.vector = hit.score;
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
