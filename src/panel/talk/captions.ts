/** The live transcript of a talk: one caption per side per turn. */
export interface Caption {
  turn: number;
  who: 'user' | 'agent';
  text: string;
  interrupted: boolean;
}

/**
 * Adds `text` to the caption of (`turn`, `who`). A `response` may come once with the whole answer
 * or several times as the answer is produced (each new sentence, or the text so far): text that
 * extends the caption replaces it, text already in it is ignored, other text is appended.
 */
export function addCaption(captions: Caption[], turn: number, who: Caption['who'], text: string): Caption[] {
  const i = captions.findIndex((c) => c.turn === turn && c.who === who);
  if (i === -1) {
    const next = [...captions, { turn, who, text, interrupted: false }];
    // Turn order, the user before the agent within a turn.
    return next.sort((a, b) => a.turn - b.turn || (a.who === b.who ? 0 : a.who === 'user' ? -1 : 1));
  }
  const current = captions[i]!;
  const merged = text.startsWith(current.text)
    ? text
    : current.text.includes(text)
      ? current.text
      : `${current.text} ${text}`;
  return captions.map((c, k) => (k === i ? { ...c, text: merged } : c));
}

export function markInterrupted(captions: Caption[], turn: number): Caption[] {
  return captions.map((c) => (c.turn === turn && c.who === 'agent' ? { ...c, interrupted: true } : c));
}
