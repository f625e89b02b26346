import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/schemas/document.js';
import { AgentIndex, type SearchOptions } from '../../src/rag/agent-index.js';
import { defaultAnnSettings, type AnnSettings } from '../../src/rag/ann-index.js';

const dims = 64;
const always: AnnSettings = { ...defaultAnnSettings, minChunks: 0 };

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  return v.map((x) => x / Math.sqrt(n));
}

const words = 'ocean river glacier volcano desert forest meadow canyon island harbour lantern compass'.split(' ');

/** `count` chunks of a document: texts from a small vocabulary, vectors around a per-document direction. */
function document(id: string, count: number, random: () => number): { chunks: Chunk[]; vectors: Float32Array[] } {
  const centre = Float32Array.from({ length: dims }, () => random() - 0.5);
  const chunks: Chunk[] = [];
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const text = Array.from({ length: 6 }, () => words[Math.floor(random() * words.length)]).join(' ');
    chunks.push({ id: `${id}#${i}`, document_id: id, index: i, text, start: 0, end: text.length, tokens: 6 });
    vectors.push(unit(centre.map((c) => c + (random() - 0.5) * 0.8)));
  }
  return { chunks, vectors };
}

function corpus(docs: number, perDoc: number, seed: number) {
  const random = rng(seed);
  return Array.from({ length: docs }, (_, d) => ({ id: `doc_${d}`, ...document(`doc_${d}`, perDoc, random) }));
}

function queries(n: number, seed: number): { text: string; vector: Float32Array }[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => ({
    text: `${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]}`,
    vector: unit(Float32Array.from({ length: dims }, () => random() - 0.5)),
  }));
}

const options: SearchOptions = { k: 20, minScore: 0 };

/** The hits as ids and ranks, with scores to float tolerance (the graph's cosine is computed by usearch). */
function expectSame(ann: ReturnType<AgentIndex['search']>, exact: ReturnType<AgentIndex['search']>): void {
  expect(ann.map((h) => [h.chunk_id, h.bm25_rank, h.vector_rank])).toEqual(
    exact.map((h) => [h.chunk_id, h.bm25_rank, h.vector_rank]),
  );
  ann.forEach((h, i) => {
    expect(h.vector!).toBeCloseTo(exact[i]!.vector!, 5);
    expect(h.score).toBeCloseTo(exact[i]!.score, 5);
  });
}

describe('ANN index (usearch HNSW)', () => {
  it('gives the same results as the exact scan on a small corpus', async () => {
    const index = new AgentIndex(always);
    for (const d of corpus(8, 40, 1)) index.addDocument({ id: d.id, name: d.id }, d.chunks, d.vectors);
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 320, annRows: 320 });
    for (const q of queries(25, 2)) {
      expectSame(index.search(q.text, q.vector, options), index.search(q.text, q.vector, { ...options, exact: true }));
    }
  });

  it('answers exactly for rows the graph does not cover yet, merged with the graph for the rest', async () => {
    const index = new AgentIndex(always);
    const [first, second] = corpus(2, 150, 3);
    index.addDocument({ id: first!.id, name: 'first' }, first!.chunks, first!.vectors);
    await index.settled();
    index.addDocument({ id: second!.id, name: 'second' }, second!.chunks, second!.vectors);
    expect(index.vectorStats).toEqual({ rows: 300, annRows: 150 }); // built in the background
    // A query equal to a chunk of the new document finds it first, before the graph reaches it.
    const target = second!.vectors[7]!;
    const [top] = index.search('', target, { k: 1, minScore: 0 });
    expect(top).toMatchObject({ chunk_id: `${second!.id}#7`, vector_rank: 1 });
    for (const q of queries(10, 4))
      expectSame(index.search(q.text, q.vector, options), index.search(q.text, q.vector, { ...options, exact: true }));
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 300, annRows: 300 });
  });

  it('never returns a deleted chunk, and rebuilds the graph once deletions outnumber half of it', async () => {
    const index = new AgentIndex(always);
    const docs = corpus(4, 60, 5);
    for (const d of docs) index.addDocument({ id: d.id, name: d.id }, d.chunks, d.vectors);
    await index.settled();
    const probe = docs[0]!.vectors[3]!;
    expect(index.search('', probe, { k: 1, minScore: 0 })[0]!.chunk_id).toBe('doc_0#3');

    index.removeDocument('doc_0');
    expect(index.vectorStats).toEqual({ rows: 180, annRows: 180 }); // tombstones only
    const after = index.search('ocean', probe, { k: 240, minScore: 0 });
    expect(after.length).toBeGreaterThan(0);
    expect(after.some((h) => h.document_id === 'doc_0')).toBe(false);
    expectSame(index.search('ocean', probe, options), index.search('ocean', probe, { ...options, exact: true }));

    index.removeDocument('doc_1'); // 120 tombstones for 120 live vectors: the graph is dropped and rebuilt
    expect(index.vectorStats).toEqual({ rows: 120, annRows: 0 });
    expectSame(index.search('ocean', probe, options), index.search('ocean', probe, { ...options, exact: true }));
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 120, annRows: 120 });
    expect(index.search('', probe, { k: 120, minScore: 0 }).some((h) => h.document_id === 'doc_1')).toBe(false);
  });

  it('re-adding a document (re-embedded) replaces its vectors in the graph', async () => {
    const index = new AgentIndex(always);
    const [d] = corpus(1, 50, 6);
    index.addDocument({ id: d!.id, name: 'd' }, d!.chunks, d!.vectors);
    await index.settled();
    const fresh = corpus(1, 50, 7)[0]!.vectors;
    index.addDocument({ id: d!.id, name: 'd' }, d!.chunks, fresh);
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 50, annRows: 50 });
    const [top] = index.search('', fresh[9]!, { k: 1, minScore: 0 });
    expect(top).toMatchObject({ chunk_id: `${d!.id}#9` });
    expect(top!.vector!).toBeCloseTo(1, 5);
  });

  it('scans exactly below the threshold and builds the graph once an agent reaches it', async () => {
    const index = new AgentIndex({ ...defaultAnnSettings, minChunks: 100 });
    const [a, b] = corpus(2, 60, 8);
    index.addDocument({ id: a!.id, name: 'a' }, a!.chunks, a!.vectors);
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 60, annRows: 0 });
    index.addDocument({ id: b!.id, name: 'b' }, b!.chunks, b!.vectors);
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 120, annRows: 120 });
    index.removeDocument(a!.id); // below the threshold again: back to the exact scan
    expect(index.vectorStats).toEqual({ rows: 60, annRows: 0 });
    await index.settled();
    expect(index.vectorStats).toEqual({ rows: 60, annRows: 0 });
  });
});
