import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkText, type TextChunk } from '../../src/rag/chunker.js';

/** One token per word: easy to reason about in the assertions. */
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function sentence(i: number, n = 10): string {
  return `S${i} ` + Array.from({ length: n - 2 }, (_, j) => `w${j}`).join(' ') + ' end.';
}

function expectSlices(text: string, chunks: TextChunk[]) {
  for (const c of chunks) expect(text.slice(c.start, c.end)).toBe(c.text);
}

describe('chunkText', () => {
  it('packs whole sentences up to the token limit and never splits one', () => {
    const sentences = Array.from({ length: 20 }, (_, i) => sentence(i));
    const text = sentences.join(' ');
    const chunks = chunkText(text, words, { maxTokens: 35, overlapTokens: 0 });
    expectSlices(text, chunks);
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(35);
      expect(words(c.text)).toBe(c.tokens);
      // every chunk is a run of whole sentences
      expect(c.text).toMatch(/^S\d+ .* end\.$/);
      for (const piece of c.text.split(/(?<=end\.) /)) expect(sentences).toContain(piece);
    }
    expect(chunks.map((c) => c.text).join(' ')).toBe(text);
    expect(chunks).toHaveLength(7); // 3 sentences of 10 tokens per chunk
  });

  it('overlaps neighbouring chunks by whole trailing sentences within the overlap budget', () => {
    const text = Array.from({ length: 12 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, words, { maxTokens: 40, overlapTokens: 20 });
    expectSlices(text, chunks);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!;
      const cur = chunks[i]!;
      expect(cur.start).toBeLessThan(prev.end); // overlap
      expect(words(text.slice(cur.start, prev.end))).toBeLessThanOrEqual(20);
      expect(prev.text.endsWith(text.slice(cur.start, prev.end))).toBe(true);
    }
    expect(chunks.at(-1)!.end).toBe(text.length);
  });

  it('keeps a heading with the text that follows it and starts a chunk at each heading', () => {
    const text = [
      '# Alpha',
      '',
      sentence(1),
      sentence(2),
      '',
      '## Beta',
      '',
      sentence(3),
      '',
      '## Gamma',
      sentence(4),
    ].join('\n');
    const chunks = chunkText(text, words, { maxTokens: 100, overlapTokens: 10 });
    expectSlices(text, chunks);
    expect(chunks.map((c) => c.text.split('\n')[0])).toEqual(['# Alpha', '## Beta', '## Gamma']);
    expect(chunks[0]!.text).toContain(sentence(2));
    expect(chunks[1]!.text).toBe(`## Beta\n\n${sentence(3)}`);
    expect(chunks[2]!.text).toBe(`## Gamma\n${sentence(4)}`);
  });

  it('never leaves a heading alone at the end of a chunk', () => {
    const text = [sentence(1), sentence(2), sentence(3), '# Next', sentence(4)].join('\n');
    const chunks = chunkText(text, words, { maxTokens: 25, overlapTokens: 0 });
    expectSlices(text, chunks);
    for (const c of chunks) expect(c.text.split('\n').at(-1)!.startsWith('#')).toBe(false);
    expect(chunks.find((c) => c.text.includes('# Next'))!.text).toContain('S4');
  });

  it('splits a single sentence longer than the limit between words', () => {
    const long = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ') + '.';
    const text = `${sentence(1)} ${long} ${sentence(2)}`;
    const chunks = chunkText(text, words, { maxTokens: 20, overlapTokens: 0 });
    expectSlices(text, chunks);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(20);
    expect(chunks.map((c) => c.text).join(' ')).toBe(text);
  });

  it('handles long documents without one huge segmenter input and keeps offsets exact', () => {
    const text = readFileSync(new URL('../fixtures/rag/corpus/lighthouses.md', import.meta.url), 'utf8').repeat(200);
    const chunks = chunkText(text, words, { maxTokens: 60, overlapTokens: 15 });
    expectSlices(text, chunks);
    expect(chunks.length).toBeGreaterThan(400);
  });
});
