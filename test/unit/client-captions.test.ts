import { describe, expect, it } from 'vitest';
import { addCaption, markInterrupted, type Caption } from '../../src/panel/talk/captions.js';

describe('Talk captions', () => {
  it('keeps one caption per side per turn, the user first', () => {
    let c: Caption[] = [];
    c = addCaption(c, 1, 'agent', 'Hi.');
    c = addCaption(c, 1, 'user', 'Hello');
    c = addCaption(c, 0, 'agent', 'Welcome.');
    expect(c.map((x) => [x.turn, x.who, x.text])).toEqual([
      [0, 'agent', 'Welcome.'],
      [1, 'user', 'Hello'],
      [1, 'agent', 'Hi.'],
    ]);
  });

  it('takes a response sent sentence by sentence, as the text so far, or once more at the end', () => {
    let sentences: Caption[] = [];
    for (const s of ['Sure.', 'A table for two.', 'See you tonight.']) sentences = addCaption(sentences, 2, 'agent', s);
    expect(sentences[0]!.text).toBe('Sure. A table for two. See you tonight.');

    let growing: Caption[] = [];
    for (const s of ['Sure.', 'Sure. A table for two.']) growing = addCaption(growing, 2, 'agent', s);
    expect(growing[0]!.text).toBe('Sure. A table for two.');

    const repeated = addCaption(sentences, 2, 'agent', 'A table for two.');
    expect(repeated[0]!.text).toBe('Sure. A table for two. See you tonight.');
  });

  it('marks the agent caption of an interrupted turn only', () => {
    let c: Caption[] = [];
    c = addCaption(c, 3, 'user', 'Wait');
    c = addCaption(c, 3, 'agent', 'Let me');
    c = markInterrupted(c, 3);
    expect(c.map((x) => x.interrupted)).toEqual([false, true]);
  });
});
