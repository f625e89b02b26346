import { describe, expect, it } from 'vitest';
import { markInterrupted, setCaption, type Caption } from '../../src/panel/talk/captions.js';

describe('Talk captions', () => {
  it('keeps one caption per side per turn, in turn order, the user first', () => {
    let c: Caption[] = [];
    c = setCaption(c, 1, 'agent', 'Hi.');
    c = setCaption(c, 1, 'user', 'Hello');
    c = setCaption(c, 0, 'agent', 'Welcome.');
    expect(c.map((x) => [x.turn, x.who, x.text])).toEqual([
      [0, 'agent', 'Welcome.'],
      [1, 'user', 'Hello'],
      [1, 'agent', 'Hi.'],
    ]);
  });

  it('replaces the answer so far with each response of the turn, the final one last', () => {
    let c: Caption[] = [];
    for (const text of ['Sure.', 'Sure. A table for two.', 'Sure. A table for two. See you.'])
      c = setCaption(c, 2, 'agent', text);
    expect(c).toEqual([{ turn: 2, who: 'agent', text: 'Sure. A table for two. See you.', interrupted: false }]);
  });

  it('marks the agent caption of an interrupted turn only', () => {
    let c: Caption[] = [];
    c = setCaption(c, 3, 'user', 'Wait');
    c = setCaption(c, 3, 'agent', 'Let me');
    c = markInterrupted(c, 3);
    expect(c.map((x) => x.interrupted)).toEqual([false, true]);
  });
});
