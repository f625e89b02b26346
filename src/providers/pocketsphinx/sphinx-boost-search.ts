/**
 * Builds a decoder's boosted search (worker thread only: every call here is FFI). The phrases'
 * words the dictionary lacks are added with a guessed pronunciation (sphinx-pronounce.ts); the
 * phrases' bigram model (ARPA text, sphinx-boost.ts) is read through a temporary file and mixed
 * with the decoder's general model in a sphinxbase model set (`ngram_model_set_init`, linear
 * interpolation), which becomes an n-gram search of its own (`ps_set_lm`). The general model is
 * shared with the decoder's default search, not loaded again.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import koffi from 'koffi';
import type { SphinxBoost } from './sphinx-boost.js';
import type { SphinxCalls } from './sphinx-library.js';
import { pronounce } from './sphinx-pronounce.js';

/** sphinxbase's `NGRAM_ARPA` (ngram_file_type_t). */
const arpaType = 1;
/** The name ngram_search gives the one model of its set (ngram_search_init). */
const innerModel = 'default';
let files = 0;

/** The dictionary's phones for `word`, or null when it is not in the dictionary. */
export function dictionaryPhones(calls: SphinxCalls, ps: unknown, word: string): string | null {
  const found = calls.lookupWord(ps, word);
  if (found === null) return null;
  try {
    return koffi.decode(found, 'char', -1) as string;
  } finally {
    calls.ckdFree(found); // ps_lookup_word allocates the string for its caller
  }
}

/**
 * Adds the boost's words missing from the dictionary; returns those it could not pronounce (a
 * letter outside a-z once accents are stripped): the boost goes on without them.
 */
export function addMissingWords(calls: SphinxCalls, ps: unknown, words: readonly string[]): string[] {
  const lookup = (w: string) => dictionaryPhones(calls, ps, w);
  const skipped: string[] = [];
  for (const word of words) {
    if (lookup(word) !== null) continue;
    const phones = pronounce(word, lookup);
    // update 0: the searches built so far keep their word lists; searches built later see the word
    if (phones === null || (calls.addWord(ps, word, phones, 0) < 0 && lookup(word) === null)) skipped.push(word);
  }
  return skipped;
}

/**
 * Builds the search `boost.name` on the decoder: its default search's model (`defaultSearch`)
 * interpolated with the phrases' model. Throws when sphinxbase refuses a step.
 */
export function buildBoostSearch(calls: SphinxCalls, ps: unknown, boost: SphinxBoost, defaultSearch: string): string[] {
  const skipped = addMissingWords(calls, ps, boost.words);
  const config = calls.getConfig(ps);
  const path = join(tmpdir(), `parley-boost-${process.pid}-${threadId}-${++files}.arpa`);
  writeFileSync(path, boost.arpa);
  let phrases: unknown;
  try {
    phrases = calls.lmRead(config, path, arpaType, calls.getLogmath(ps));
  } finally {
    unlinkSync(path);
  }
  if (phrases === null) throw new Error('pocketsphinx could not read the expected phrases as a language model');
  const defaultSet = calls.getLm(ps, defaultSearch);
  const general = defaultSet === null ? null : calls.lmSetLookup(defaultSet, innerModel);
  if (general === null) {
    calls.lmFree(phrases);
    throw new Error('pocketsphinx has no general language model to boost');
  }
  const mixed = calls.lmSetInit(
    config,
    [general, phrases],
    ['general', 'phrases'],
    [1 - boost.weight, boost.weight],
    2,
  );
  calls.lmFree(phrases); // the set holds its own reference (or none, when it failed)
  if (mixed === null) throw new Error('pocketsphinx could not mix the expected phrases into its language model');
  const built = calls.setLm(ps, boost.name, mixed);
  calls.lmFree(mixed); // the search holds its own reference
  if (built < 0) throw new Error('pocketsphinx could not build a search for the expected phrases');
  return skipped;
}
