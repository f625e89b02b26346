import type { Logger } from 'pino';
import { ProviderError } from '../provider-error.js';
import type { SttStream } from '../stt.js';
import type { SphinxPool, SphinxWorker } from './sphinx-pool.js';
import type { SphinxBand } from './sphinx-band.js';
import type { SphinxSearch } from './sphinx-protocol.js';

let nextStream = 1;

/**
 * One utterance on one decoder: each write is sent to the decoder's worker at once (a copy: the
 * caller's view is not kept) and decoded there in order; its reply carries the hypothesis so far.
 * Backpressure: when the worker has more than `maxLagSamples` of this stream's audio queued, the
 * stream gives up (the decoders are behind real time) and its utterance is transcribed whole at
 * the end instead: `healthy` turns false. Every ending (finish, cancel, failure) frees the decoder.
 */
export class SphinxStream implements SttStream {
  readonly #id = nextStream++;
  readonly #pool: SphinxPool;
  readonly #worker: SphinxWorker;
  readonly #maxLag: number;
  readonly #logger: Logger | undefined;
  readonly #opened: Promise<unknown>;
  #partial = '';
  #queued = 0;
  #failure: unknown;
  #ended = false;
  #released: Promise<void> | undefined;

  constructor(
    pool: SphinxPool,
    worker: SphinxWorker,
    opened: { search: SphinxSearch; band: SphinxBand },
    maxLagSamples: number,
    logger?: Logger,
  ) {
    this.#pool = pool;
    this.#worker = worker;
    this.#maxLag = maxLagSamples;
    this.#logger = logger;
    this.#opened = worker.client.call('open', { stream: this.#id, ...opened }).catch((err: unknown) => this.#fail(err));
  }

  get partial(): string {
    return this.#partial;
  }

  get healthy(): boolean {
    return this.#failure === undefined;
  }

  write(samples: Int16Array): void {
    if (this.#ended || this.#failure !== undefined || samples.length === 0) return;
    if (this.#queued + samples.length > this.#maxLag) {
      this.#fail(
        new ProviderError('pocketsphinx', 'the decoders are behind real time; the utterance is transcribed whole'),
      );
      void this.#release();
      return;
    }
    const copy = samples.slice();
    const length = copy.length; // the transfer empties `copy`
    this.#queued += length;
    this.#worker.client.call('feed', { stream: this.#id, samples: copy }, { transfer: [copy.buffer] }).then(
      ({ partial }) => {
        this.#queued -= length;
        this.#partial = partial;
      },
      (err: unknown) => this.#fail(err),
    );
  }

  async finish(): Promise<string> {
    if (this.#failure !== undefined) {
      await this.#release();
      throw this.#failure;
    }
    if (this.#ended) throw new Error('the stream has ended');
    this.#ended = true;
    try {
      await this.#opened;
      const reply = await this.#worker.client.call('finish', { stream: this.#id });
      if (this.#failure !== undefined) throw this.#failure;
      return reply.text;
    } catch (err) {
      throw this.#failure ?? err;
    } finally {
      this.#pool.release(this.#worker);
    }
  }

  cancel(): void {
    void this.#release();
  }

  /** Drops the utterance on the worker and gives the decoder back (once). */
  #release(): Promise<void> {
    if (this.#ended) return this.#released ?? Promise.resolve();
    this.#ended = true;
    this.#released = this.#worker.client.call('cancel', { stream: this.#id }).then(
      () => this.#pool.release(this.#worker),
      (err: unknown) => {
        // the worker frees a decoder on every failure, or has died (its replacement starts free)
        this.#logger?.warn({ err }, 'pocketsphinx: cancelling an utterance failed');
        this.#pool.release(this.#worker);
      },
    );
    return this.#released;
  }

  /** Keeps the first failure; finish() reports it. */
  #fail(err: unknown): void {
    this.#failure ??= err;
  }
}
