import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Chunk, DocumentType } from '../../src/schemas/document.js';
import { AgentIndex } from '../../src/rag/agent-index.js';
import { chunkText } from '../../src/rag/chunker.js';
import { extractDocumentText } from '../../src/rag/extract.js';
import { topRows } from '../../src/rag/vector-index.js';
import { VectorMatrix } from '../../src/rag/vector-matrix.js';

const corpusDir = new URL('../fixtures/rag/corpus/', import.meta.url);
const types: Record<string, DocumentType> = { '.txt': 'text', '.md': 'markdown', '.html': 'html', '.pdf': 'pdf' };
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Questions and the sentence their answer is in: a different chunk of a different document each. */
export const questions: [string, string][] = [
  [
    'Who invented the Fresnel lens?',
    'The Fresnel lens was invented by the French physicist Augustin-Jean Fresnel in 1822.',
  ],
  ['How often should I feed the starter?', 'To keep a starter active, feed it once a day'],
  [
    'How do forager bees tell the direction of flowers?',
    'The angle of the dance relative to vertical gives the direction of the food',
  ],
  ["What are Saturn's rings made of?", "Saturn's rings are made mostly of water ice"],
  ['Why does a worn clutch slip?', 'A worn clutch slips under load'],
  ['Which tea is partly oxidised?', 'Oolong tea is partly oxidised'],
  ['When may a pawn capture en passant?', 'that enemy pawn may capture it as if it had moved only one square'],
  ['What destroyed Pompeii?', 'Pyroclastic flows destroyed the Roman towns of Pompeii and Herculaneum'],
  ['What is a moraine?', 'A moraine is a ridge of rock debris'],
  ['Who kept the lighthouse log?', 'kept a log of passing vessels'],
];

let index: AgentIndex;
let allChunks: Chunk[];
beforeAll(async () => {
  index = new AgentIndex();
  allChunks = [];
  for (const file of readdirSync(corpusDir)) {
    const type = types[extname(file)]!;
    const text = await extractDocumentText(type, readFileSync(new URL(file, corpusDir)));
    const id = `doc_${file}`;
    const chunks = chunkText(text, words, { maxTokens: 45, overlapTokens: 10 }).map((c, i) => ({
      ...c,
      id: `${id}#${i}`,
      document_id: id,
      index: i,
    }));
    allChunks.push(...chunks);
    index.addDocument(
      { id, name: file },
      chunks,
      chunks.map(() => null),
    );
  }
});

describe('BM25 over the corpus', () => {
  it('has several chunks per longer document', () => {
    expect(allChunks.filter((c) => c.document_id === 'doc_lighthouses.md').length).toBeGreaterThanOrEqual(3);
    expect(index.chunkCount).toBe(allChunks.length);
  });

  it.each(questions)('ranks the chunk answering “%s” first', (question, answer) => {
    const hits = index.search(question, null, { k: 3, minScore: 0 });
    expect(hits[0]!.text).toContain(answer);
    expect(hits[0]!.bm25_rank).toBe(1);
    expect(hits[0]!.vector).toBeNull();
  });

  it('finds nothing for words no document has, and honours k and the minimum score', () => {
    expect(index.search('xylophone quasar', null, { k: 5, minScore: 0 })).toEqual([]);
    expect(index.search('water', null, { k: 2, minScore: 0 })).toHaveLength(2);
    // BM25 alone: first place is 1/(60+1) of the 2/(60+1) a chunk first in both lists gets.
    const [top] = index.search('moraine', null, { k: 1, minScore: 0 });
    expect(top!.score).toBeCloseTo(0.5, 5);
    expect(index.search('moraine', null, { k: 1, minScore: 0.6 })).toEqual([]);
  });
});

function randomUnit(dims: number, seed: number): Float32Array {
  let s = seed;
  const v = new Float32Array(dims);
  let n = 0;
  for (let i = 0; i < dims; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    v[i] = s / 2147483648 - 0.5;
    n += v[i]! * v[i]!;
  }
  for (let i = 0; i < dims; i++) v[i]! /= Math.sqrt(n);
  return v;
}

describe('vector path', () => {
  it('scores rows by dot product exactly like a plain loop (WebAssembly kernel)', () => {
    for (const dims of [384, 10, 1536]) {
      const m = new VectorMatrix(dims, 4);
      const rows = Array.from({ length: 37 }, (_, i) => randomUnit(dims, i + 1));
      m.append(rows.slice(0, 5));
      m.append(rows.slice(5)); // grows past the initial capacity
      const q = randomUnit(dims, 999);
      const scores = m.scores(q);
      expect(scores.length).toBe(37);
      rows.forEach((r, i) => {
        let d = 0;
        for (let j = 0; j < dims; j++) d += r[j]! * q[j]!;
        expect(scores[i]).toBeCloseTo(d, 5);
      });
      const best = topRows(scores, 5);
      const expected = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).slice(0, 5);
      expect(best).toEqual(expected);
    }
  });

  it('fuses BM25 and cosine ranks, and forgets a removed document everywhere', () => {
    const idx = new AgentIndex();
    const make = (doc: string, texts: string[]) =>
      texts.map((text, i) => ({
        id: `${doc}#${i}`,
        document_id: doc,
        index: i,
        text,
        start: 0,
        end: text.length,
        tokens: words(text),
      }));
    const a = make('doc_a', ['red apples grow on trees', 'green pears are sweet']);
    const b = make('doc_b', ['blue whales are huge', 'apples and pears make cider']);
    const va = a.map((_, i) => randomUnit(384, 10 + i));
    const vb = b.map((_, i) => randomUnit(384, 20 + i));
    idx.addDocument({ id: 'doc_a', name: 'A' }, a, va);
    idx.addDocument({ id: 'doc_b', name: 'B' }, b, vb);

    const hits = idx.search('apples', vb[1]!, { k: 4, minScore: 0 });
    // "apples and pears make cider": BM25 rank ≤ 2 and the exact vector → first overall
    expect(hits[0]!.chunk_id).toBe('doc_b#1');
    expect(hits[0]!.vector_rank).toBe(1);
    expect(hits[0]!.vector).toBeCloseTo(1, 5);
    expect(hits).toHaveLength(4); // every chunk has a vector rank

    idx.removeDocument('doc_b');
    const after = idx.search('apples', va[1]!, { k: 4, minScore: 0 });
    expect(after.map((h) => h.document_id)).toEqual(['doc_a', 'doc_a']);
    expect(after.find((h) => h.chunk_id === 'doc_a#1')!.vector_rank).toBe(1);
    expect(idx.search('whales', null, { k: 4, minScore: 0 })).toEqual([]);
  });
});
