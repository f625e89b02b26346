import { createHash } from 'node:crypto';

/**
 * An agent's expected phrases as a boost for the recogniser's language model: the words and
 * phrases become a small bigram model (ARPA text) that a decoder interpolates with its general
 * one, so those words and phrases are far likelier than before while any other words can still
 * be heard. `name` names the phrases' model (a decoder reads it again only when another boost was
 * in between); `words` are the phrases' distinct words, which a decoder adds to its dictionary when
 * missing (sphinx-pronounce.ts).
 */
export interface SphinxBoost {
  name: string;
  words: string[];
  arpa: string;
  /** The phrases' model's interpolation weight (`boostWeight`). */
  weight: number;
}

/**
 * How the phrases' model is weighed against the general one (its interpolation weight). The two
 * are mixed after the language weight (`-lw` 6.5) is applied, so a phrase word's chance comes out
 * near its chance among the phrases times this weight to the power 1/6.5: 0.05 keeps ~63 % of it.
 * bench/stt/vocabulary.ts measured the weights around it.
 */
export const boostWeight = 0.05;

/** Of each word's bigram chances, the share left to backing off to the word alone. */
const backoffMass = 0.5;

/** The phrases as lower-case words, duplicates and empty ones dropped (the agent schema checks letters). */
export function cleanPhrases(phrases: readonly string[] | undefined): string[] {
  const cleaned = (phrases ?? []).map((p) => p.trim().toLowerCase().replace(/\s+/g, ' ')).filter((p) => p !== '');
  return [...new Set(cleaned)];
}

/** The boost for `phrases`, or null for none. */
export function phraseBoost(phrases: readonly string[] | undefined, weight = boostWeight): SphinxBoost | null {
  const cleaned = cleanPhrases(phrases);
  if (cleaned.length === 0) return null;
  const arpa = phraseArpa(cleaned.map((p) => p.split(' ')));
  const words = [...new Set(cleaned.flatMap((p) => p.split(' ')))];
  const hash = createHash('sha256').update(`${weight}\n${arpa}`).digest('hex').slice(0, 16);
  return { name: `boost_${hash}`, words, arpa, weight };
}

const log10 = (p: number) => Math.log10(p).toFixed(4);

/**
 * A bigram model of `phrases` (each a word list) in ARPA text: a word's unigram chance is its
 * share of the phrases' words and ends (`</s>`), a bigram's is half its share of what follows its
 * first word, the other half left to backing off to the unigram.
 */
export function phraseArpa(phrases: readonly string[][]): string {
  const unigrams = new Map<string, number>();
  const follows = new Map<string, Map<string, number>>();
  let tokens = 0;
  for (const phrase of phrases) {
    const seq = ['<s>', ...phrase, '</s>'];
    for (let i = 1; i < seq.length; i++) {
      const word = seq[i]!;
      unigrams.set(word, (unigrams.get(word) ?? 0) + 1);
      tokens++;
      const after = follows.get(seq[i - 1]!) ?? new Map<string, number>();
      after.set(word, (after.get(word) ?? 0) + 1);
      follows.set(seq[i - 1]!, after);
    }
  }
  const bigrams: string[] = [];
  for (const [first, after] of [...follows].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const total = [...after.values()].reduce((n, c) => n + c, 0);
    for (const [second, count] of [...after].sort(([a], [b]) => (a < b ? -1 : 1)))
      bigrams.push(`${log10(((1 - backoffMass) * count) / total)} ${first} ${second}`);
  }
  const backoff = (word: string) => (follows.has(word) ? ` ${log10(backoffMass)}` : '');
  const words = [...unigrams.keys()].filter((w) => w !== '</s>').sort();
  return [
    '\\data\\',
    `ngram 1=${words.length + 2}`,
    `ngram 2=${bigrams.length}`,
    '',
    '\\1-grams:',
    `-99.0000 <s>${backoff('<s>')}`,
    `${log10(unigrams.get('</s>')! / tokens)} </s>`,
    ...words.map((w) => `${log10(unigrams.get(w)! / tokens)} ${w}${backoff(w)}`),
    '',
    '\\2-grams:',
    ...bigrams,
    '',
    '\\end\\',
    '',
  ].join('\n');
}

/**
 * A unigram model of `words` (ARPA text), each as likely as the others: what a decoder's model set
 * carries, with weight 0, so its vocabulary keeps the words of earlier boosts (sphinx-boost-search.ts).
 */
export function vocabularyArpa(words: readonly string[]): string {
  const sorted = [...new Set(words)].sort();
  const p = log10(1 / (sorted.length + 1));
  return [
    '\\data\\',
    `ngram 1=${sorted.length + 2}`,
    '',
    '\\1-grams:',
    '-99.0000 <s>',
    `${p} </s>`,
    ...sorted.map((w) => `${p} ${w}`),
    '',
    '\\end\\',
    '',
  ].join('\n');
}
