/** The live transcript of a talk: one caption per side per turn. */
export interface Caption {
  turn: number;
  who: 'user' | 'agent';
  text: string;
  interrupted: boolean;
}

/**
 * Sets the caption of (`turn`, `who`) to `text`. A `response` carries the answer so far (one per
 * sentence as it is produced, then the whole answer with `final: true`), so the latest replaces
 * the caption; captions stay in turn order, the user before the agent within a turn.
 */
export function setCaption(captions: Caption[], turn: number, who: Caption['who'], text: string): Caption[] {
  const i = captions.findIndex((c) => c.turn === turn && c.who === who);
  if (i !== -1) return captions.map((c, k) => (k === i ? { ...c, text } : c));
  const next = [...captions, { turn, who, text, interrupted: false }];
  return next.sort((a, b) => a.turn - b.turn || (a.who === b.who ? 0 : a.who === 'user' ? -1 : 1));
}

export function markInterrupted(captions: Caption[], turn: number): Caption[] {
  return captions.map((c) => (c.turn === turn && c.who === 'agent' ? { ...c, interrupted: true } : c));
}
