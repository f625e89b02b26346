import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import MiniSearch from 'minisearch';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentType } from '../../src/schemas/document.js';
import { chunkText } from '../../src/rag/chunker.js';
import { extractDocumentText } from '../../src/rag/extract.js';
import { LexicalIndex } from '../../src/rag/lexical-index.js';

const corpusDir = new URL('../fixtures/rag/corpus/', import.meta.url);
const types: Record<string, DocumentType> = { '.txt': 'text', '.md': 'markdown', '.html': 'html', '.pdf': 'pdf' };
const stop = new Set(
  'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

let texts: string[];
beforeAll(async () => {
  texts = [];
  for (const file of readdirSync(corpusDir)) {
    const text = await extractDocumentText(types[extname(file)]!, readFileSync(new URL(file, corpusDir)));
    for (const c of chunkText(text, (s) => s.split(/\s+/).length, { maxTokens: 45, overlapTokens: 10 }))
      texts.push(c.text);
  }
});

/** The same texts in MiniSearch, configured as the index was before it had its own postings. */
function miniSearch(keys: number[]): MiniSearch<{ key: number; text: string }> {
  const m = new MiniSearch<{ key: number; text: string }>({
    idField: 'key',
    fields: ['text'],
    processTerm: (t) => (t.length === 0 || stop.has(t.toLowerCase()) ? null : t.toLowerCase()),
  });
  m.addAll(keys.map((key) => ({ key, text: texts[key]! })));
  return m;
}

const queries = [
  'Who invented the Fresnel lens?',
  'How often should I feed the starter?',
  "What are Saturn's rings made of?",
  'water ice rings lighthouse keeper',
  'tea oxidised leaves green black',
  'volcano eruption lava ash',
  'xylophone quasar',
];

function expectSameAsMiniSearch(lexical: LexicalIndex, m: MiniSearch<{ key: number; text: string }>): void {
  for (const q of queries) {
    const ours = lexical.search(q, 15);
    const theirs = m.search(q).slice(0, 15);
    expect(ours.length).toBe(theirs.length);
    ours.forEach((hit, i) => expect(hit.score).toBeCloseTo(theirs[i]!.score, 9));
    // Same scores in the same order; where MiniSearch's order among equal scores differs, the sets agree.
    expect(new Set(ours.map((h) => h.key))).toEqual(new Set(theirs.map((r) => r.id as number)));
  }
}

describe('LexicalIndex (BM25)', () => {
  it('scores and ranks like MiniSearch', () => {
    const keys = texts.map((_, i) => i);
    const lexical = new LexicalIndex();
    for (const key of keys) lexical.add(key, texts[key]!);
    expect(texts.length).toBeGreaterThan(20);
    expectSameAsMiniSearch(lexical, miniSearch(keys));
    expect(lexical.search('Fresnel lens', 1)[0]!.key).toBe(texts.findIndex((t) => t.includes('Fresnel lens')));
  });

  it('forgets removed chunks, before and after compacting its postings', () => {
    const lexical = new LexicalIndex();
    texts.forEach((t, key) => lexical.add(key, t));
    const odd = texts.map((_, i) => i).filter((i) => i % 2 === 1);
    lexical.remove(odd.slice(0, 3)); // a few dead slots: not compacted yet
    const kept = texts.map((_, i) => i).filter((i) => !odd.slice(0, 3).includes(i));
    expectSameAsMiniSearch(lexical, miniSearch(kept));
    lexical.remove(texts.map((_, i) => i).filter((i) => i % 3 !== 0)); // most of them: compacted
    const left = kept.filter((i) => i % 3 === 0);
    expect(lexical.size).toBe(left.length);
    expectSameAsMiniSearch(lexical, miniSearch(left));
    lexical.add(1, texts[1]!); // a key can come back
    expect(lexical.search(texts[1]!, 1)[0]!.key).toBe(1);
  });
});
