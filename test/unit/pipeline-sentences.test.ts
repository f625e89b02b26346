import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { SentenceSplitter, splitSentences, splitSpeech } from '../../src/pipeline/reply/sentences.js';

const split = (deltas: string[], maxChars?: number) =>
  lastValueFrom(from(deltas).pipe(splitSentences(maxChars), toArray()));

describe('sentence splitting', () => {
  it('emits each sentence as soon as its end and the following space arrive', () => {
    const s = new SentenceSplitter();
    expect(s.push('Hello')).toEqual([]);
    expect(s.push(' there.')).toEqual([]); // no space after the full stop yet: it may be "there.com"
    expect(s.push(' How are')).toEqual(['Hello there.']);
    expect(s.push(' you? Fine! ')).toEqual(['How are you?', 'Fine!']);
    expect(s.flush()).toBe('');
  });

  it('lets the first piece end at a clause, so speech starts sooner; later pieces are whole sentences', async () => {
    const s = new SentenceSplitter();
    expect(s.push('Sure,')).toEqual([]);
    expect(s.push(' let me check, then')).toEqual(['Sure,']);
    expect(s.push(' call you. Bye, now. ')).toEqual(['let me check, then call you.', 'Bye, now.']);
    expect(await split(['It costs 1,000 dollars, ', 'or 900, cash.'])).toEqual([
      'It costs 1,000 dollars,',
      'or 900, cash.',
    ]);
    expect(await split(['Hours: nine to five. Yes.'])).toEqual(['Hours: nine to five.', 'Yes.']);
  });

  it('keeps closing quotes and brackets with their sentence, and splits on newlines and ellipses', async () => {
    expect(await split(['He said "stop." Then', ' left (quickly.) Well… ok\n\nnext'])).toEqual([
      'He said "stop."',
      'Then left (quickly.)',
      'Well…',
      'ok',
      'next',
    ]);
  });

  it('does not split decimals or a full stop inside a word', async () => {
    expect(await split(['It costs 3.50 dollars at example.com today.'])).toEqual([
      'It costs 3.50 dollars at example.com today.',
    ]);
  });

  it('flushes the unfinished rest at the end, and drops whitespace-only text', async () => {
    expect(await split(['One. Two'])).toEqual(['One.', 'Two']);
    expect(await split(['  ', '\n'])).toEqual([]);
  });

  it('cuts a run without punctuation at the last space before maxChars', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const out = await split([words], 50);
    expect(out.every((s) => s.length <= 50)).toBe(true);
    expect(out.join(' ')).toBe(words);
    expect(await split(['x'.repeat(120)], 50)).toEqual(['x'.repeat(50), 'x'.repeat(50), 'x'.repeat(20)]);
  });
});

describe('the text of an answer as it goes to a streaming TTS', () => {
  const speech = (deltas: string[]) => lastValueFrom(from(deltas).pipe(splitSpeech(), toArray()));

  it('passes the deltas on as they come, cut where a piece ends, each piece right after its text', async () => {
    expect(await speech(['Sure,', ' let', ' me check. It', ' is open.'])).toEqual([
      { type: 'text', text: 'Sure,' },
      { type: 'text', text: ' ' },
      { type: 'sentence', text: 'Sure,' },
      { type: 'text', text: 'let' },
      { type: 'text', text: ' me check. ' },
      { type: 'sentence', text: 'let me check.' },
      { type: 'text', text: 'It' },
      { type: 'text', text: ' is open.' },
      { type: 'sentence', text: 'It is open.' },
    ]);
  });

  it('says every character once and the same pieces as splitSentences, whatever the cuts', async () => {
    const answer = 'Well, that depends. We open at nine!\nParking is free… mostly. Call us, anytime';
    for (const size of [1, 3, 7, answer.length]) {
      const deltas = answer.match(new RegExp(`[^]{1,${size}}`, 'g'))!;
      const out = await speech(deltas);
      expect(
        out
          .filter((s) => s.type === 'text')
          .map((s) => s.text)
          .join(''),
      ).toBe(answer);
      expect(out.filter((s) => s.type === 'sentence').map((s) => s.text)).toEqual(await split(deltas));
    }
  });
});
