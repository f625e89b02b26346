import type { Logger } from 'pino';
import { ProviderError } from '../provider-error.js';
import type { StreamingSttProvider, SttRequest, SttStream, SttStreamRequest } from '../stt.js';
import { bandOf } from './sphinx-band.js';
import { phraseBoost } from './sphinx-boost.js';
import { phraseGrammar } from './sphinx-grammar.js';
import { defaultPocketsphinxOptions, type PocketsphinxOptions } from './sphinx-options.js';
import { SphinxPool } from './sphinx-pool.js';
import type { SphinxSearch } from './sphinx-protocol.js';
import { SphinxStream } from './sphinx-stream.js';

const rate = 16_000;
const label = 'pocketsphinx';

/**
 * CMU PocketSphinx in-process (Debian's libpocketsphinx3 through FFI, on worker threads): US
 * English, trained weights from Debian's `pocketsphinx-en-us`, no download. Streams: a session
 * opens a stream at the onset of speech and the decoder works through the utterance as it is
 * spoken, so the transcript is ready a few ms after the end of speech. A whole utterance can also
 * be transcribed at once (when no decoder was free at the onset, or for other callers). Phone
 * calls (`capturedRate` 8 kHz) get decoders of their own (sphinx-band.ts). An agent's expected
 * phrases boost the language model (sphinx-boost.ts), or with `phrasesOnly` are a grammar.
 */
export class PocketsphinxStt implements StreamingSttProvider {
  readonly label = label;
  readonly options: PocketsphinxOptions;
  readonly #pool: SphinxPool;
  readonly #logger: Logger | undefined;

  constructor(options: Partial<PocketsphinxOptions> = {}, logger?: Logger) {
    this.options = { ...defaultPocketsphinxOptions, ...options };
    this.#pool = new SphinxPool(this.options);
    this.#logger = logger;
  }

  /** A request's `phrasesOnly` makes its phrases a grammar: only those phrases can be heard. */
  readonly phraseGrammar = true;

  /** Decoders serving an utterance now. */
  get busy(): number {
    return this.#pool.busy;
  }

  /**
   * Loads a decoder for audio captured at `capturedRate` now, and builds its search for `phrases`,
   * so the first utterance does not wait ~0.3-1 s for the model nor ~0.2-0.4 s for the search (a
   * session calls it as it starts).
   */
  async warm(request: Pick<SttStreamRequest, 'capturedRate' | 'phrases' | 'phrasesOnly'> = {}): Promise<void> {
    await this.#pool.warm(bandOf(request.capturedRate), this.#search(request));
  }

  openStream(request: SttStreamRequest): SttStream | null {
    this.#check(request);
    const worker = this.#pool.tryAcquire();
    if (worker === null) return null;
    const maxLag = Math.round((this.options.maxLagMs * rate) / 1000);
    const opened = { search: this.#search(request), band: bandOf(request.capturedRate) };
    return new SphinxStream(this.#pool, worker, opened, maxLag, this.#logger);
  }

  async transcribe(request: SttRequest): Promise<string> {
    request.signal?.throwIfAborted();
    this.#check(request);
    if (request.audio.length === 0) return '';
    const worker = await this.#pool.acquire(request.signal);
    try {
      const samples = request.audio.slice();
      const { text } = await worker.client.call(
        'transcribe',
        { samples, search: this.#search(request), band: bandOf(request.capturedRate) },
        { signal: request.signal, transfer: [samples.buffer] },
      );
      return text;
    } finally {
      this.#pool.release(worker);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  /** The request's phrases as a grammar (`phrasesOnly`), as a boost of the language model, or none. */
  #search({ phrases, phrasesOnly }: Pick<SttRequest, 'phrases' | 'phrasesOnly'>): SphinxSearch {
    if (phrasesOnly === true) return phraseGrammar(phrases);
    const boost = phraseBoost(phrases, this.options.boostWeight);
    return boost === null ? null : { kind: 'boost', ...boost };
  }

  #check(request: Pick<SttRequest, 'sampleRate' | 'language'>): void {
    if (request.sampleRate !== rate)
      throw new ProviderError(label, `audio must be ${rate} Hz mono, got ${request.sampleRate} Hz`);
    const language = request.language?.toLowerCase() ?? null;
    if (language !== null && language !== 'en' && !language.startsWith('en-'))
      throw new ProviderError(label, `recognises US English only (language ${request.language} asked for)`);
  }
}
