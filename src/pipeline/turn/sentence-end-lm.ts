import { existsSync } from 'node:fs';
import koffi from 'koffi';
import type { Logger } from 'pino';

/**
 * How likely a sentence ends after the words so far, from the recogniser's own trigram language
 * model (pocketsphinx's `en-us.lm.bin`, read through sphinxbase's n-gram API): log10
 * P(`</s>` | the last two words). "thank you" scores -0.49, "book a table" -0.66, "please enter
 * your" -2.36. Read once per process on the event loop thread (about 50 ms and 40 MB); each score
 * is one trie lookup of a few microseconds.
 */
export class SentenceEndLm {
  readonly #prob: (model: unknown, words: string[], n: number) => number;
  readonly #model: unknown;

  private constructor(library: string, path: string) {
    const sb = koffi.load(library);
    const logmath = sb.func('void *logmath_init(double base, int shift, int use_table)');
    const read = sb.func('void *ngram_model_read(void *config, const char *file, int type, void *lmath)');
    this.#prob = sb.func('int ngram_prob(void *model, const char **words, int n)');
    // NGRAM_AUTO (0): the binary trie or ARPA text, by content
    const model = read(null, path, 0, logmath(logBase, 0, 0));
    if (model === null) throw new Error(`sphinxbase could not read the language model ${path}`);
    this.#model = model;
  }

  /**
   * The model at `path`, or null (logged) when the file or the library is missing: endpointing then
   * has no sentence-end evidence for unpunctuated transcripts and waits `endpointing_default_ms`.
   */
  static open(path: string, library: string, logger: Logger): SentenceEndLm | null {
    if (!existsSync(path)) {
      logger.info({ path }, 'no language model for sentence ends: unpunctuated statements wait endpointing_default_ms');
      return null;
    }
    try {
      return new SentenceEndLm(library, path);
    } catch (err) {
      logger.warn(
        { err, path },
        'the sentence-end language model could not be read; unpunctuated statements wait endpointing_default_ms',
      );
      return null;
    }
  }

  /** log10 P(end of sentence | the last two of `words`); -Infinity with no words. Lower-case words. */
  endLog10(words: readonly string[]): number {
    if (words.length === 0) return -Infinity;
    // the last two words, newest first; a word the model does not know counts as its <UNK>
    const history = words.slice(-2).reverse();
    return this.#prob(this.#model, ['</s>', ...history], history.length + 1) * log10OfBase;
  }
}

/** sphinxbase's usual log base: scores are integers in units of log(1.0001). */
const logBase = 1.0001;
const log10OfBase = Math.log10(logBase);
