/**
 * Matching the user's words against the agent's phrase lists (`backchannel_words`, `stop_words`):
 * case, punctuation and hyphens are ignored, so "Uh-huh." matches "uh-huh" and "uh huh".
 */

/** Lower case words, hyphens and punctuation dropped: "Mm-hmm, okay." → ["mm", "hmm", "okay"]. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[-_]/g, ' ')
    .replace(/[^\p{L}\p{N}'@. ]/gu, ' ')
    .replace(/\.(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Whether `text` is made only of acknowledgements ("uh-huh", "okay yeah"); '' is not. */
export function isBackchannel(text: string, phrases: readonly string[]): boolean {
  const words = wordsOf(text);
  if (words.length === 0) return false;
  const known = phrases.map(wordsOf).filter((p) => p.length > 0);
  const from = (at: number): boolean =>
    at === words.length || known.some((p) => startsWith(words, at, p) && from(at + p.length));
  return from(0);
}

/**
 * Whether `text` is mostly single letters ("an m h and m"): how a recogniser that has no word for
 * a hum or a murmur ("mm-hmm" said slowly) writes it. More than half the words are one letter,
 * leaving out the English words "a" and "i" (and digits, which are words).
 */
export function mostlyLetters(text: string): boolean {
  const words = wordsOf(text);
  return words.filter(isLoneLetter).length * 2 > words.length;
}

/** Whether `text` holds a single letter that is no English word ("an m a"): a murmur's mark. */
export function holdsLoneLetter(text: string): boolean {
  return wordsOf(text).some(isLoneLetter);
}

const isLoneLetter = (w: string): boolean => /^\p{L}$/u.test(w) && w !== 'a' && w !== 'i';

/** Whether `text` says one of `phrases` as whole words anywhere ("stop", "wait, wait"). */
export function saysAny(text: string, phrases: readonly string[]): boolean {
  const words = wordsOf(text);
  return phrases
    .map(wordsOf)
    .filter((p) => p.length > 0)
    .some((p) => words.some((_, at) => startsWith(words, at, p)));
}

/** The words of `text` outside every occurrence of `phrases`: "okay so got it now" less "okay", "got it" → ["so", "now"]. */
export function wordsOutside(text: string, phrases: readonly string[]): string[] {
  const words = wordsOf(text);
  const known = phrases.map(wordsOf).filter((p) => p.length > 0);
  const out: string[] = [];
  for (let at = 0; at < words.length;) {
    const phrase = known.find((p) => startsWith(words, at, p));
    if (phrase === undefined) out.push(words[at++]!);
    else at += phrase.length;
  }
  return out;
}

function startsWith(words: readonly string[], at: number, phrase: readonly string[]): boolean {
  return phrase.every((w, i) => words[at + i] === w);
}
