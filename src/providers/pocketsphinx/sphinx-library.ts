/**
 * Debian's CMU PocketSphinx (`libpocketsphinx3`, 5prealpha API, with `libsphinxbase3`) through
 * koffi's FFI: only the calls Parley uses. Loaded inside the decoder worker thread only; every call
 * here blocks that thread, never the event loop.
 */
import koffi from 'koffi';
import { PhraseBoosting } from './sphinx-boost-search.js';
import type { SphinxSearch } from './sphinx-protocol.js';

type Pointer = unknown;

export interface SphinxCalls {
  psArgs: () => Pointer;
  parseConfig: (inout: Pointer, defn: Pointer, argc: number, argv: string[], strict: number) => Pointer;
  freeConfig: (config: Pointer) => number;
  init: (config: Pointer) => Pointer;
  free: (ps: Pointer) => number;
  startUtt: (ps: Pointer) => number;
  processRaw: (ps: Pointer, data: Int16Array, samples: number, noSearch: number, fullUtt: number) => number;
  endUtt: (ps: Pointer) => number;
  getHyp: (ps: Pointer, score: number[]) => string | null;
  setJsgfString: (ps: Pointer, name: string, jsgf: string) => number;
  setSearch: (ps: Pointer, name: string) => number;
  getSearch: (ps: Pointer) => string | null;
  // vocabulary boosting (sphinx-boost-search.ts): the dictionary, the n-gram search, sphinxbase's models
  lookupWord: (ps: Pointer, word: string) => Pointer;
  addWord: (ps: Pointer, word: string, phones: string, update: number) => number;
  getLm: (ps: Pointer, name: string) => Pointer;
  setLm: (ps: Pointer, name: string, lm: Pointer) => number;
  getConfig: (ps: Pointer) => Pointer;
  getLogmath: (ps: Pointer) => Pointer;
  lmRead: (config: Pointer, path: string, type: number, logmath: Pointer) => Pointer;
  lmFree: (model: Pointer) => number;
  lmWid: (model: Pointer, word: string) => number;
  lmUnknownWid: (model: Pointer) => number;
  lmSetInit: (config: Pointer, models: Pointer[], names: string[], weights: number[], n: number) => Pointer;
  lmSetLookup: (set: Pointer, name: string) => Pointer;
  lmSetAdd: (set: Pointer, model: Pointer, name: string, weight: number, reuseWidmap: number) => Pointer;
  lmSetRemove: (set: Pointer, name: string, reuseWidmap: number) => Pointer;
  lmSetInterp: (set: Pointer, names: string[], weights: number[]) => Pointer;
  lmSetSelect: (set: Pointer, name: string) => Pointer;
  ckdFree: (pointer: Pointer) => void;
}

/** Library file names (sonames) of the Debian packages, found on the loader's path. */
export const defaultLibraries = { pocketsphinx: 'libpocketsphinx.so.3', sphinxbase: 'libsphinxbase.so.3' };

let loaded: SphinxCalls | undefined;

/** Binds the C functions once per thread; throws with the loader's message when a library is missing. */
export function sphinxLibrary(libraries = defaultLibraries): SphinxCalls {
  if (loaded !== undefined) return loaded;
  const sb = koffi.load(libraries.sphinxbase);
  const ps = koffi.load(libraries.pocketsphinx);
  loaded = {
    psArgs: ps.func('void *ps_args()'),
    parseConfig: sb.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)'),
    freeConfig: sb.func('int cmd_ln_free_r(void *config)'),
    init: ps.func('void *ps_init(void *config)'),
    free: ps.func('int ps_free(void *ps)'),
    startUtt: ps.func('int ps_start_utt(void *ps)'),
    processRaw: ps.func('int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)'),
    endUtt: ps.func('int ps_end_utt(void *ps)'),
    getHyp: ps.func('const char *ps_get_hyp(void *ps, _Out_ int32_t *score)'),
    setJsgfString: ps.func('int ps_set_jsgf_string(void *ps, const char *name, const char *jsgf)'),
    setSearch: ps.func('int ps_set_search(void *ps, const char *name)'),
    getSearch: ps.func('const char *ps_get_search(void *ps)'),
    lookupWord: ps.func('void *ps_lookup_word(void *ps, const char *word)'),
    addWord: ps.func('int ps_add_word(void *ps, const char *word, const char *phones, int update)'),
    getLm: ps.func('void *ps_get_lm(void *ps, const char *name)'),
    setLm: ps.func('int ps_set_lm(void *ps, const char *name, void *lm)'),
    getConfig: ps.func('void *ps_get_config(void *ps)'),
    getLogmath: ps.func('void *ps_get_logmath(void *ps)'),
    lmRead: sb.func('void *ngram_model_read(void *config, const char *path, int type, void *lmath)'),
    lmFree: sb.func('int ngram_model_free(void *model)'),
    lmWid: sb.func('int32_t ngram_wid(void *model, const char *word)'),
    lmUnknownWid: sb.func('int32_t ngram_unknown_wid(void *model)'),
    lmSetInit: sb.func(
      'void *ngram_model_set_init(void *config, void **models, const char **names, const float *weights, int32_t n)',
    ),
    lmSetLookup: sb.func('void *ngram_model_set_lookup(void *set, const char *name)'),
    lmSetAdd: sb.func('void *ngram_model_set_add(void *set, void *model, const char *name, float weight, int reuse)'),
    lmSetRemove: sb.func('void *ngram_model_set_remove(void *set, const char *name, int reuse)'),
    lmSetInterp: sb.func('void *ngram_model_set_interp(void *set, const char **names, const float *weights)'),
    lmSetSelect: sb.func('void *ngram_model_set_select(void *set, const char *name)'),
    ckdFree: sb.func('void ckd_free(void *pointer)'),
  };
  return loaded;
}

/** One decoder: its own search state over the model files (each loads its own copy, ~40 MB). */
export class SphinxDecoder {
  readonly #calls: SphinxCalls;
  #ps: Pointer;
  readonly #defaultSearch: string;
  /** Grammar searches this decoder has built, by name. */
  readonly #grammars = new Set<string>();
  /** The default search's boost towards an agent's phrases. */
  readonly #boosting: PhraseBoosting;
  #inUtterance = false;
  readonly #score = [0];

  constructor(argv: readonly string[], libraries = defaultLibraries) {
    this.#calls = sphinxLibrary(libraries);
    const config = this.#calls.parseConfig(null, this.#calls.psArgs(), argv.length, [...argv], 1);
    if (config === null) throw new Error(`pocketsphinx rejected its configuration (${argv.join(' ')})`);
    const ps = this.#calls.init(config);
    // ps_init keeps its own reference to the configuration
    this.#calls.freeConfig(config);
    if (ps === null) throw new Error('pocketsphinx could not load its model (see PARLEY_POCKETSPHINX_MODEL_DIR)');
    this.#ps = ps;
    this.#defaultSearch = this.#calls.getSearch(ps) ?? '_default';
    this.#boosting = new PhraseBoosting(this.#calls, ps, this.#defaultSearch);
  }

  /**
   * Starts an utterance with the language model (`search` null), the model boosted towards the
   * expected phrases, or a JSGF grammar of them (built once per decoder under its name). Throws
   * when a grammar does not compile (a word not in the dictionary) or sphinxbase refuses a boost.
   */
  start(search: SphinxSearch): void {
    const ps = this.#live();
    if (this.#inUtterance) this.#calls.endUtt(ps);
    let name = this.#defaultSearch;
    if (search?.kind === 'grammar') {
      if (!this.#grammars.has(search.name)) {
        if (this.#calls.setJsgfString(ps, search.name, search.jsgf) < 0)
          throw new Error('the expected phrases do not compile into a grammar (a word is not in the dictionary?)');
        this.#grammars.add(search.name);
      }
      name = search.name;
    } else {
      this.#boosting.use(search);
    }
    if (this.#calls.setSearch(ps, name) < 0) throw new Error(`pocketsphinx has no search ${name}`);
    if (this.#calls.startUtt(ps) < 0) throw new Error('pocketsphinx could not start an utterance');
    this.#inUtterance = true;
  }

  /** Decodes samples (16 kHz PCM16) now; returns the current best hypothesis. */
  process(samples: Int16Array): string {
    const ps = this.#live();
    if (!this.#inUtterance) throw new Error('pocketsphinx: audio outside an utterance');
    if (samples.length > 0 && this.#calls.processRaw(ps, samples, samples.length, 0, 0) < 0)
      throw new Error('pocketsphinx could not decode the audio');
    return this.#calls.getHyp(ps, this.#score) ?? '';
  }

  /** Ends the utterance; its final hypothesis ('' when nothing was recognised). */
  end(): string {
    const ps = this.#live();
    if (!this.#inUtterance) return '';
    this.#inUtterance = false;
    if (this.#calls.endUtt(ps) < 0) throw new Error('pocketsphinx could not end the utterance');
    return this.#calls.getHyp(ps, this.#score) ?? '';
  }

  /** Drops the utterance under way, if any. */
  cancel(): void {
    if (!this.#inUtterance || this.#ps === null) return;
    this.#inUtterance = false;
    this.#calls.endUtt(this.#ps);
  }

  dispose(): void {
    if (this.#ps === null) return;
    this.#calls.free(this.#ps);
    this.#ps = null;
  }

  #live(): Pointer {
    if (this.#ps === null) throw new Error('pocketsphinx decoder is disposed');
    return this.#ps;
  }
}
