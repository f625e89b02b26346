/** Requests between the main thread's SphinxPool and a decoder worker (sphinx-worker.ts). */
import type { SphinxBand } from './sphinx-band.js';

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
  name: string;
  jsgf: string;
}

export type SphinxProtocol = {
  /** Builds one decoder for `band` (model load), so the first utterance does not wait for it. */
  warm: { request: { band: SphinxBand }; reply: Record<string, never> };
  /** Takes a free decoder of `band` for `stream` and starts an utterance on it. */
  open: { request: { stream: number; grammar: SphinxGrammar | null; band: SphinxBand }; reply: Record<string, never> };
  /** Decodes more of the utterance; replies with the hypothesis so far. */
  feed: { request: { stream: number; samples: Int16Array }; reply: { partial: string } };
  /** Ends the utterance and frees the decoder: the final hypothesis. */
  finish: { request: { stream: number }; reply: { text: string } };
  /** Drops the utterance and frees the decoder. */
  cancel: { request: { stream: number }; reply: Record<string, never> };
  /** A whole utterance at once, on a free decoder of `band`. */
  transcribe: {
    request: { samples: Int16Array; grammar: SphinxGrammar | null; band: SphinxBand };
    reply: { text: string };
  };
};
