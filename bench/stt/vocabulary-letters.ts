/**
 * How good the pronunciation guess for new words is (src/providers/pocketsphinx/sphinx-pronounce.ts
 * `spell`): its phones for dictionary words against the dictionary's own, as a phone error rate.
 */
import { readFileSync } from 'node:fs';
import { defaultPocketsphinxOptions, modelFiles } from '../../src/providers/pocketsphinx/sphinx-options.js';
import { spell } from '../../src/providers/pocketsphinx/sphinx-pronounce.js';
import { round } from '../lib/report.js';

export interface LetterRulesRow {
  /** Dictionary words checked: every `every`-th plain word (letters only, first pronunciation). */
  words: number;
  every: number;
  /** Guessed exactly as the dictionary says. */
  exact: number;
  /** Phone edits (substitutions, deletions, insertions) over the dictionary's phones. */
  phone_error_rate: number;
}

function edits(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

export function letterRules(every = 40): LetterRulesRow {
  const entries = readFileSync(modelFiles(defaultPocketsphinxOptions.modelDir).dict, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([word]) => word !== undefined && /^[a-z]+$/.test(word))
    .filter((_, i) => i % every === 0);
  let exact = 0;
  let errors = 0;
  let phones = 0;
  for (const [word, ...said] of entries) {
    const guessed = (spell(word!) ?? '').split(' ').filter((p) => p !== '');
    if (guessed.join(' ') === said.join(' ')) exact++;
    errors += edits(said, guessed);
    phones += said.length;
  }
  return { words: entries.length, every, exact, phone_error_rate: round(errors / phones, 3) };
}
