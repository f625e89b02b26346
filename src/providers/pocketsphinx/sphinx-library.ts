/**
 * Debian's CMU PocketSphinx (`libpocketsphinx3`, 5prealpha API, with `libsphinxbase3`) through
 * koffi's FFI: only the calls Parley uses. Loaded inside the decoder worker thread only; every call
 * here blocks that thread, never the event loop.
 */
import koffi from 'koffi';

type Pointer = unknown;

interface SphinxCalls {
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
}

/** Library file names (sonames) of the Debian packages; override with PARLEY_POCKETSPHINX_LIBRARY. */
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
  }

  /**
   * Starts an utterance with the language model (`grammar` null) or with a JSGF grammar built once
   * per decoder under `name`. Throws when the grammar does not compile (a word not in the dictionary).
   */
  start(grammar: { name: string; jsgf: string } | null): void {
    const ps = this.#live();
    if (this.#inUtterance) this.#calls.endUtt(ps);
    let search = this.#defaultSearch;
    if (grammar !== null) {
      if (!this.#grammars.has(grammar.name)) {
        if (this.#calls.setJsgfString(ps, grammar.name, grammar.jsgf) < 0)
          throw new Error('the expected phrases do not compile into a grammar (a word is not in the dictionary?)');
        this.#grammars.add(grammar.name);
      }
      search = grammar.name;
    }
    if (this.#calls.setSearch(ps, search) < 0) throw new Error(`pocketsphinx has no search ${search}`);
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
