/**
 * A decoder's language model boosted towards an agent's expected phrases (worker thread only:
 * every call here is FFI). On the first boost the decoder's default search is rebuilt over a
 * sphinxbase model set (`ngram_model_set_init`, linear interpolation): the general model, the
 * phrases' bigram model (ARPA text, sphinx-boost.ts, read through a temporary file) and, with
 * weight 0, a unigram model of every word earlier boosts brought that the general model lacks (so
 * the set's vocabulary keeps them). Another agent's phrases replace the phrases' model in the set
 * (`ngram_model_set_remove`/`_add`, keeping the set's word map: milliseconds); an utterance
 * without phrases selects the general model alone. So a decoder holds one search whatever the
 * number of agents: a search costs ~40 MB and ~0.2 s to build.
 *
 * Words of the phrases that the dictionary lacks are added with a guessed pronunciation
 * (sphinx-pronounce.ts) once the search is over the set, and the search is rebuilt to know them;
 * phrases with words the set's vocabulary lacks get a new set. The general model itself is never
 * changed: Debian's sphinxbase (5prealpha) reads past its arrays when a word added to a trie model
 * is the history of a longer n-gram (a segmentation fault, met here), and an added word would be
 * hearable by every agent. Without a boost, added words cannot be heard.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import koffi from 'koffi';
import { vocabularyArpa, type SphinxBoost } from './sphinx-boost.js';
import type { SphinxCalls } from './sphinx-library.js';
import { pronounce } from './sphinx-pronounce.js';

type Pointer = unknown;

/** sphinxbase's `NGRAM_ARPA` (ngram_file_type_t). */
const arpaType = 1;
/** The name ngram_search gives the one model it wraps (ngram_search_init). */
const wrapped = 'default';
/**
 * The set's models. A set's vocabulary points at its models' word strings, each word at the first
 * model that has it: the vocabulary model (never removed) comes before the phrases' model, whose
 * strings go when it is replaced.
 */
const names = ['general', 'vocabulary', 'phrases'];
const weightsOf = (boost: SphinxBoost) => [1 - boost.weight, 0, boost.weight];
let files = 0;

export class PhraseBoosting {
  readonly #calls: SphinxCalls;
  readonly #ps: Pointer;
  readonly #search: string;
  /** The general model (en-us.lm.bin), which the default search was built over. */
  readonly #general: Pointer;
  /** The default search's model set once built. */
  #set: Pointer = null;
  /** The name of the boost whose phrases' model is in the set. */
  #current: string | null = null;
  /** Words of earlier boosts that the general model lacks. */
  readonly #vocabulary = new Set<string>();

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
   * alone (null). Words it cannot pronounce are left out of the boost. Throws when sphinxbase
   * refuses a step.
   */
  use(boost: SphinxBoost | null): void {
    const calls = this.#calls;
    if (boost === null) {
      if (this.#set !== null) calls.lmSetSelect(this.#set, 'general');
      return;
    }
    // the search is over a set before any word is added: ps_add_word then leaves the general model alone
    if (this.#set === null) this.#install(this.#newSet(boost), true);
    const { skipped, added } = this.#addToDictionary(boost.words);
    const unknown = boost.words.some((w) => !skipped.includes(w) && !this.#knows(this.#set, w));
    if (unknown) this.#install(this.#newSet(boost), true);
    else {
      if (this.#current !== boost.name) this.#swap(boost.arpa);
      if (added) this.#install(this.#set, false); // a search knows the words the dictionary had when built
    }
    this.#current = boost.name;
    calls.lmSetInterp(this.#set, names, weightsOf(boost));
  }

  /** A set of the general model, `boost`'s phrases and the vocabulary of every boost so far. */
  #newSet(boost: SphinxBoost): Pointer {
    const calls = this.#calls;
    if (this.#general === null) throw new Error('pocketsphinx has no general language model to boost');
    for (const word of boost.words) if (!this.#knows(this.#general, word)) this.#vocabulary.add(word);
    const phrases = this.#read(boost.arpa);
    const vocabulary = this.#read(vocabularyArpa([...this.#vocabulary]));
    const models = [this.#general, vocabulary, phrases];
    const set = calls.lmSetInit(calls.getConfig(this.#ps), models, names, weightsOf(boost), 3);
    calls.lmFree(phrases); // the set holds its own references (none when it failed)
    calls.lmFree(vocabulary);
    if (set === null) throw new Error('pocketsphinx could not mix the expected phrases into its language model');
    this.#current = boost.name;
    return set;
  }

  /** Rebuilds the default search over `set` (its old search and set are freed); `fresh`: ours to hand over. */
  #install(set: Pointer, fresh: boolean): void {
    const built = this.#calls.setLm(this.#ps, this.#search, set);
    if (fresh) this.#calls.lmFree(set); // the search holds its own reference
    if (built < 0) throw new Error('pocketsphinx could not build a search for the expected phrases');
    this.#set = set;
  }

  /** Adds the words the dictionary lacks; `added`: some were. */
  #addToDictionary(words: readonly string[]): { skipped: string[]; added: boolean } {
    const lookup = (w: string) => this.#phones(w);
    const skipped: string[] = [];
    let added = false;
    for (const word of words) {
      if (lookup(word) !== null) continue;
      const phones = pronounce(word, lookup);
      // update 0: the search is rebuilt afterwards, once
      if (phones !== null) this.#calls.addWord(this.#ps, word, phones, 0);
      if (lookup(word) === null) skipped.push(word);
      else added = true;
    }
    return { skipped, added };
  }

  #knows(model: Pointer, word: string): boolean {
    return this.#calls.lmWid(model, word) !== this.#calls.lmUnknownWid(model);
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

  /** A model read from ARPA text through a temporary file. */
  #read(arpa: string): Pointer {
    const calls = this.#calls;
    const path = join(tmpdir(), `parley-boost-${process.pid}-${threadId}-${++files}.arpa`);
    writeFileSync(path, arpa);
    try {
      const model = calls.lmRead(calls.getConfig(this.#ps), path, arpaType, calls.getLogmath(this.#ps));
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
