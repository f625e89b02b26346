/**
 * A pronunciation (CMU phones, as in `cmudict-en-us.dict`) for a word the dictionary lacks, so an
 * agent's expected phrases can carry product names and other new words. Debian's pocketsphinx
 * 5prealpha has no grapheme-to-phoneme model, so this is a guess: a word made of two dictionary
 * words takes theirs ("superawesome" = super + awesome), any other word follows English spelling
 * rules below (letter groups, a silent final e that lengthens the vowel before it, doubled
 * consonants said once). The rules get ordinary words mostly right and foreign names partly
 * (bench/stt-vocabulary.ts measures them on dictionary words); a word with a letter outside a-z
 * and the apostrophe once accents are stripped gets none.
 */

/** A dictionary look-up: the word's phones, or null when it is not in the dictionary. */
export type Lookup = (word: string) => string | null;

/** Letter groups at a position, longest first; `^` only at the start, `$` only at the end. */
const groups: readonly [string, string][] = [
  ['tch', 'CH'],
  ['dge', 'JH'],
  ['ble$', 'B AH L'],
  ['ple$', 'P AH L'],
  ['tle$', 'T AH L'],
  ['ses$', 'S IH Z'],
  ['ces$', 'S IH Z'],
  ['ches$', 'CH IH Z'],
  ['shes$', 'SH IH Z'],
  ['ted$', 'T IH D'],
  ['ded$', 'D IH D'],
  ['sch', 'S K'],
  ['tion$', 'SH AH N'],
  ['tion', 'SH AH N'],
  ['sion', 'ZH AH N'],
  ['ough', 'AO'],
  ['igh', 'AY'],
  ['^kn', 'N'],
  ['^wr', 'R'],
  ['^wh', 'W'],
  ['^x', 'Z'],
  ['^y', 'Y'],
  ['y$', 'IY'],
  ["'s$", 'Z'],
  ['ch', 'CH'],
  ['sh', 'SH'],
  ['th', 'TH'],
  ['ph', 'F'],
  ['ck', 'K'],
  ['ng', 'NG'],
  ['gh', ''],
  ['qu', 'K W'],
  ['ee', 'IY'],
  ['ea', 'IY'],
  ['oo', 'UW'],
  ['ou', 'AW'],
  ['ow$', 'OW'],
  ['ow', 'AW'],
  ['oi', 'OY'],
  ['oy', 'OY'],
  ['ai', 'EY'],
  ['ay', 'EY'],
  ['au', 'AO'],
  ['aw', 'AO'],
  ['ei', 'EY'],
  ['ey$', 'IY'],
  ['ey', 'EY'],
  ['ie', 'IY'],
  ['ue', 'UW'],
  ['oa', 'OW'],
  ['er', 'ER'],
  ['ir', 'ER'],
  ['ur', 'ER'],
  ['ar', 'AA R'],
  ['or', 'AO R'],
];

const consonants: Record<string, string> = {
  b: 'B',
  c: 'K',
  d: 'D',
  f: 'F',
  g: 'G',
  h: 'HH',
  j: 'JH',
  k: 'K',
  l: 'L',
  m: 'M',
  n: 'N',
  p: 'P',
  q: 'K',
  r: 'R',
  s: 'S',
  t: 'T',
  v: 'V',
  w: 'W',
  x: 'K S',
  y: 'IH',
  z: 'Z',
};
const short: Record<string, string> = { a: 'AE', e: 'EH', i: 'IH', o: 'AA', u: 'AH' };
const long: Record<string, string> = { a: 'EY', e: 'IY', i: 'AY', o: 'OW', u: 'UW' };
const final: Record<string, string> = { a: 'AH', i: 'IY', o: 'OW', u: 'UW' };
const isVowel = (c: string | undefined) => c !== undefined && 'aeiou'.includes(c);
const softens = (c: string | undefined) => c !== undefined && 'eiy'.includes(c);

/** The word's phones from the dictionary, from two dictionary words, or by the rules; null for none. */
export function pronounce(word: string, lookup: Lookup): string | null {
  const known = lookup(word);
  if (known !== null) return known;
  const plain = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (!/^[a-z']+$/.test(plain) || !/[a-z]/.test(plain)) return null;
  return compound(plain, lookup) ?? spell(plain);
}

/** Two dictionary words of three letters or more making up `word`, the longest first part first. */
function compound(word: string, lookup: Lookup): string | null {
  for (let cut = word.length - 3; cut >= 3; cut--) {
    const head = lookup(word.slice(0, cut));
    const tail = head === null ? null : lookup(word.slice(cut));
    if (head !== null && tail !== null) return `${head} ${tail}`;
  }
  return null;
}

/** English spelling rules, left to right. */
export function spell(word: string): string | null {
  const letters = word.replace(/'(?!s$)/g, '');
  const phones: string[] = [];
  let i = 0;
  while (i < letters.length) {
    const group = groups.find(([g]) => matchesAt(letters, i, g));
    if (group !== undefined) {
      if (group[1] !== '') phones.push(group[1]);
      i += group[0].replace(/[\^$]/g, '').length;
      continue;
    }
    const c = letters[i]!;
    const next = letters[i + 1];
    if (next === c && !isVowel(c)) {
      i++; // a doubled consonant is said once
      continue;
    }
    if (isVowel(c)) phones.push(reduced(vowel(letters, i), phones));
    else if (c === 's' && i === letters.length - 1 && i > 0 && !'sfkpt'.includes(letters[i - 1]!)) phones.push('Z');
    else if (c === 'c') phones.push(softens(next) ? 'S' : 'K');
    else if (c === 'g') phones.push(softens(next) && i > 0 ? 'JH' : 'G');
    else if (c === 'x' && i === 0) phones.push('Z');
    else phones.push(consonants[c] ?? '');
    i++;
  }
  const out = phones.filter((p) => p !== '').join(' ');
  return out === '' ? null : out;
}

function matchesAt(word: string, at: number, group: string): boolean {
  const letters = group.replace(/[\^$]/g, '');
  if (group.startsWith('^') && at !== 0) return false;
  if (group.endsWith('$') && at + letters.length !== word.length) return false;
  return word.startsWith(letters, at);
}

/** A short vowel after the first vowel sound is mostly unstressed in English: said as a schwa. */
function reduced(phone: string, before: readonly string[]): string {
  const vowelBefore = before.some((p) => /^[AEIOU]/.test(p));
  return vowelBefore && (phone === 'AE' || phone === 'AA' || phone === 'EH') ? 'AH' : phone;
}

/** A lone vowel: long before consonant + final e ("make", "table"), or at the end; a final e is silent after others. */
function vowel(word: string, at: number): string {
  const c = word[at]!;
  const last = at === word.length - 1;
  if (last) return c === 'e' ? (/[aeiouy]/.test(word.slice(0, at)) ? '' : 'IY') : final[c]!;
  if (isVowel(word[at + 1])) return c === 'i' ? 'IY' : long[c]!; // "ia", "io": the first vowel long
  const magicE = at + 2 === word.length - 1 && word[at + 2] === 'e' && !isVowel(word[at + 1]);
  const beforeLe =
    !/[aeiouy]/.test(word.slice(0, at)) && at + 3 === word.length - 1 && word.endsWith('le') && !isVowel(word[at + 1]); // "table"
  return magicE || beforeLe ? long[c]! : short[c]!;
}
