/**
 * A decoder's language model boosted towards an agent's expected phrases (worker thread only:
 * every call here is FFI). On the first boost the decoder's default search is rebuilt over a
 * sphinxbase model set (`ngram_model_set_init`): the general model and the phrases' bigram model
 * (ARPA text, sphinx-boost.ts, read through a temporary file), mixed by linear interpolation.
 * Another agent's phrases replace the phrases' model in the set (`ngram_model_set_remove`/`_add`,
 * keeping the set's word map: milliseconds); an utterance without phrases selects the general
 * model alone. So a decoder holds one search whatever the number of agents: a search costs ~40 MB
 * and ~0.2 s to build.
 *
 * Words of the phrases that the dictionary lacks are added with a guessed pronunciation
 * (sphinx-pronounce.ts), and words the general model lacks are added to it as its rarest words
 * (chance 1/N, as `ps_add_word` does); the default search is then rebuilt to know them. Added
 * words stay for the decoder's life, hearable (rarely) by any agent on it.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import koffi from 'koffi';
import type { SphinxBoost } from './sphinx-boost.js';
import type { SphinxCalls } from './sphinx-library.js';
import { pronounce } from './sphinx-pronounce.js';

type Pointer = unknown;

/** sphinxbase's `NGRAM_ARPA` (ngram_file_type_t). */
const arpaType = 1;
/** The name ngram_search gives the one model it wraps (ngram_search_init). */
const wrapped = 'default';
const names = ['general', 'phrases'];
let files = 0;

export class PhraseBoosting {
  readonly #calls: SphinxCalls;
  readonly #ps: Pointer;
  readonly #search: string;
  /** The general model (en-us.lm.bin), which the default search was built over. */
  readonly #general: Pointer;
  /** The default search's model set (general, phrases) once built. */
  #set: Pointer = null;
  /** The name of the boost whose phrases' model is in the set. */
  #current: string | null = null;

  /** `search`: the decoder's default search, the one boosted. */
  constructor(calls: SphinxCalls, ps: Pointer, search: string) {
    this.#calls = calls;
    this.#ps = ps;
    this.#search = search;
    const wrapper = calls.getLm(ps, search);
    this.#general = wrapper === null ? null : calls.lmSetLookup(wrapper, wrapped);
  }

  /**
   * Prepares the default search for an utterance boosted towards `boost`, or for the general model
   * alone (null). Returns the boost's words that could not be pronounced (left out). Throws when
   * sphinxbase refuses a step.
   */
  use(boost: SphinxBoost | null): string[] {
    const calls = this.#calls;
    if (boost === null) {
      if (this.#set !== null) calls.lmSetSelect(this.#set, 'general');
      return [];
    }
    if (this.#general === null) throw new Error('pocketsphinx has no general language model to boost');
    const { skipped, added } = this.#addWords(boost.words);
    if (this.#set === null || added) {
      // a set's vocabulary is fixed when it is made: new words need a new set, and a search that knows them
      const phrases = this.#read(boost.arpa);
      const weights = [1 - boost.weight, boost.weight];
      const set = calls.lmSetInit(calls.getConfig(this.#ps), [this.#general, phrases], names, weights, 2);
      calls.lmFree(phrases); // the set holds its own reference (none when it failed)
      if (set === null) throw new Error('pocketsphinx could not mix the expected phrases into its language model');
      const built = calls.setLm(this.#ps, this.#search, set); // the old search, and its set, are freed
      calls.lmFree(set); // the search holds its own reference
      if (built < 0) throw new Error('pocketsphinx could not build a search for the expected phrases');
      this.#set = set;
    } else if (this.#current !== boost.name) {
      this.#swap(boost.arpa);
    }
    this.#current = boost.name;
    calls.lmSetInterp(this.#set, names, [1 - boost.weight, boost.weight]);
    return skipped;
  }

  /** Adds the words the dictionary or the general model lacks; `added`: the general model has new words. */
  #addWords(words: readonly string[]): { skipped: string[]; added: boolean } {
    const calls = this.#calls;
    const lookup = (w: string) => this.#phones(w);
    const skipped: string[] = [];
    let added = false;
    for (const word of words) {
      if (lookup(word) === null) {
        const phones = pronounce(word, lookup);
        // update 0: the default search is rebuilt below (ps_add_word's own model update misses a set)
        if (phones !== null) calls.addWord(this.#ps, word, phones, 0);
        if (lookup(word) === null) {
          skipped.push(word);
          continue;
        }
      }
      if (calls.lmWid(this.#general, word) !== calls.lmUnknownWid(this.#general)) continue;
      if (calls.lmAddWord(this.#general, word, 1) < 0) skipped.push(word);
      else added = true;
    }
    return { skipped, added };
  }

  /** The dictionary's phones for `word`, or null when it is not in the dictionary. */
  #phones(word: string): string | null {
    const found = this.#calls.lookupWord(this.#ps, word);
    if (found === null) return null;
    try {
      return koffi.decode(found, 'char', -1) as string;
    } finally {
      this.#calls.ckdFree(found); // ps_lookup_word allocates the string for its caller
    }
  }

  /** The phrases' model, read from ARPA text through a temporary file. */
  #read(arpa: string): Pointer {
    const path = join(tmpdir(), `parley-boost-${process.pid}-${threadId}-${++files}.arpa`);
    writeFileSync(path, arpa);
    try {
      const model = this.#calls.lmRead(
        this.#calls.getConfig(this.#ps),
        path,
        arpaType,
        this.#calls.getLogmath(this.#ps),
      );
      if (model === null) throw new Error('pocketsphinx could not read the expected phrases as a language model');
      return model;
    } finally {
      unlinkSync(path);
    }
  }

  /** Replaces the phrases' model in the set, keeping the set's word map (and so the search). */
  #swap(arpa: string): void {
    const calls = this.#calls;
    const phrases = this.#read(arpa);
    const removed = calls.lmSetRemove(this.#set, 'phrases', 1);
    if (removed !== null) calls.lmFree(removed); // the set gives its reference back
    calls.lmSetAdd(this.#set, phrases, 'phrases', 0, 1); // the set keeps this reference
  }
}
