import { join } from 'node:path';
import { boostWeight } from './sphinx-boost.js';
import { defaultLibraries } from './sphinx-library.js';

export interface PocketsphinxOptions {
  /**
   * The en-US model folder of Debian's `pocketsphinx-en-us`: acoustic model `en-us/`, language
   * model `en-us.lm.bin`, dictionary `cmudict-en-us.dict` (`PARLEY_POCKETSPHINX_MODEL_DIR`).
   */
  modelDir: string;
  /** Decoders per process, at most: each holds its own model copy (~95 MB) and one utterance at a time. */
  decoders: number;
  /** Worker threads the decoders are spread over (each decodes one window at a time). */
  threads: number;
  /**
   * Rescore the utterance's lattice at its end (bestpath): fewer word errors, ~5 ms per second of
   * speech after the end of speech. The slower flat-lexicon pass (fwdflat) is always off.
   */
  bestpath: boolean;
  /**
   * Audio a stream may have queued for its decoder, at most; past it the stream is dropped and
   * the utterance is transcribed whole at its end (the decoders are behind real time).
   */
  maxLagMs: number;
  /** The boost's interpolation weight (sphinx-boost.ts `boostWeight`). */
  boostWeight: number;
  libraries: { pocketsphinx: string; sphinxbase: string };
}

export const defaultPocketsphinxOptions: PocketsphinxOptions = {
  modelDir: '/usr/share/pocketsphinx/model/en-us',
  decoders: 8,
  threads: 2,
  bestpath: true,
  maxLagMs: 3_000,
  boostWeight,
  libraries: defaultLibraries,
};

/** The model files pocketsphinx needs, by role. */
export function modelFiles(modelDir: string): { hmm: string; lm: string; dict: string } {
  return {
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
}

/** pocketsphinx's own command-line options for these settings (its log goes nowhere). */
export function decoderArgv(options: PocketsphinxOptions): string[] {
  const { hmm, lm, dict } = modelFiles(options.modelDir);
  return [
    ['-hmm', hmm],
    ['-lm', lm],
    ['-dict', dict],
    ['-fwdflat', 'no'],
    ['-bestpath', options.bestpath ? 'yes' : 'no'],
    ['-logfn', '/dev/null'],
  ].flat();
}
