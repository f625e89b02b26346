/** Requests between the main thread's SphinxPool and a decoder worker (sphinx-worker.ts). */
import type { SphinxBand } from './sphinx-band.js';
import type { SphinxBoost } from './sphinx-boost.js';

/** What a decoder worker is started with. */
export interface SphinxWorkerSetup {
  /** pocketsphinx command-line options: model files and search settings (sphinx-options.ts). */
  argv: string[];
  /** The acoustic model's folder (its `feat.params`: a phone line's decoders start from another mean). */
  hmm: string;
  /** Decoders this worker may hold at once (created on first use, kept for reuse). */
  decoders: number;
  libraries: { pocketsphinx: string; sphinxbase: string };
}

/** A JSGF grammar for the expected phrases, named so each decoder compiles it once. */
export interface SphinxGrammar {
  kind: 'grammar';
  name: string;
  jsgf: string;
}

/**
 * What an utterance is decoded with besides the acoustic model: the general language model (null),
 * that model boosted towards the expected phrases (sphinx-boost.ts), or a grammar of them alone.
 */
export type SphinxSearch = SphinxGrammar | ({ kind: 'boost' } & SphinxBoost) | null;

export type SphinxProtocol = {
  /**
   * Builds one decoder for `band` (model load) and, on an idle one, `search`, so the first
   * utterance does not wait for them.
   */
  warm: { request: { band: SphinxBand; search: SphinxSearch }; reply: Record<string, never> };
  /** Takes a free decoder of `band` for `stream` and starts an utterance on it. */
  open: { request: { stream: number; search: SphinxSearch; band: SphinxBand }; reply: Record<string, never> };
  /** Decodes more of the utterance; replies with the hypothesis so far. */
  feed: { request: { stream: number; samples: Int16Array }; reply: { partial: string } };
  /** Ends the utterance and frees the decoder: the final hypothesis. */
  finish: { request: { stream: number }; reply: { text: string } };
  /** Drops the utterance and frees the decoder. */
  cancel: { request: { stream: number }; reply: Record<string, never> };
  /** A whole utterance at once, on a free decoder of `band`. */
  transcribe: {
    request: { samples: Int16Array; search: SphinxSearch; band: SphinxBand };
    reply: { text: string };
  };
};
