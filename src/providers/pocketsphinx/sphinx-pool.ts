import { WorkerClient } from '../../workers/worker-client.js';
import { ProviderError } from '../provider-error.js';
import type { SphinxBand } from './sphinx-band.js';
import { decoderArgv, modelFiles, type PocketsphinxOptions } from './sphinx-options.js';
import type { SphinxProtocol, SphinxSearch, SphinxWorkerSetup } from './sphinx-protocol.js';

/** One decoder worker and how many of its decoders are not serving an utterance. */
export interface SphinxWorker {
  readonly client: WorkerClient<SphinxProtocol>;
  free: number;
  stopped: boolean;
}

interface Waiter {
  resolve: (worker: SphinxWorker) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

const label = 'pocketsphinx';

/**
 * The process's PocketSphinx decoders: `decoders` of them spread over `threads` worker threads,
 * each decoder serving one utterance at a time. A stream takes a decoder only if one is free now
 * (`tryAcquire`: streaming is best effort); a whole-utterance transcription waits for one in
 * arrival order (`acquire`). A worker that dies fails its utterances and is replaced on next use.
 */
export class SphinxPool {
  readonly #options: PocketsphinxOptions;
  readonly #workers: (SphinxWorker | undefined)[];
  readonly #perWorker: number;
  readonly #waiting: Waiter[] = [];

  constructor(options: PocketsphinxOptions) {
    this.#options = options;
    const threads = Math.max(1, Math.min(options.threads, options.decoders));
    this.#workers = new Array<SphinxWorker | undefined>(threads).fill(undefined);
    this.#perWorker = Math.max(1, Math.ceil(options.decoders / threads));
  }

  /** Decoders serving an utterance now (for metrics and tests). */
  get busy(): number {
    return this.#workers.reduce((n, w) => n + (w === undefined || w.stopped ? 0 : this.#perWorker - w.free), 0);
  }

  /** A worker with a decoder reserved for the caller, or null when every decoder is busy. */
  tryAcquire(): SphinxWorker | null {
    let best: SphinxWorker | null = null;
    for (let i = 0; i < this.#workers.length; i++) {
      const worker = this.#worker(i);
      if (worker.free > 0 && (best === null || worker.free > best.free)) best = worker;
    }
    if (best !== null) best.free--;
    return best;
  }

  /** Waits for a free decoder (in arrival order); aborting leaves the queue. */
  acquire(signal?: AbortSignal): Promise<SphinxWorker> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#waiting.length === 0 ? this.tryAcquire() : null;
    if (now !== null) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.#waiting.indexOf(waiter);
          if (at !== -1) this.#waiting.splice(at, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Gives a decoder back (once per acquire); the next waiter gets it. */
  release(worker: SphinxWorker): void {
    if (worker.stopped) return;
    worker.free++;
    this.#serveWaiting();
  }

  /**
   * Loads one decoder of `band` now, on the worker a first stream goes to, with `search` built on
   * it, so the first utterance does not wait for the model nor the search.
   */
  async warm(band: SphinxBand, search: SphinxSearch = null): Promise<void> {
    await this.#worker(0).client.call('warm', { band, search });
  }

  async close(): Promise<void> {
    const workers = this.#workers.splice(0, this.#workers.length, ...this.#workers.map(() => undefined));
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new ProviderError(label, 'decoders are closed'));
    await Promise.all(workers.map((w) => w?.client.close('pocketsphinx decoders are closed')));
  }

  #worker(index: number): SphinxWorker {
    const existing = this.#workers[index];
    if (existing !== undefined && !existing.stopped) return existing;
    const setup: SphinxWorkerSetup = {
      argv: decoderArgv(this.#options),
      hmm: modelFiles(this.#options.modelDir).hmm,
      decoders: this.#perWorker,
      libraries: this.#options.libraries,
    };
    const worker: SphinxWorker = {
      free: this.#perWorker,
      stopped: false,
      client: new WorkerClient<SphinxProtocol>({
        module: { base: import.meta.url, name: 'sphinx-worker' },
        workerData: setup,
        name: 'pocketsphinx',
        replyError: (message) => new ProviderError(label, message),
        stopError: (cause) => new ProviderError(label, `decoder worker stopped: ${cause.message}`, { cause }),
        onStop: () => {
          worker.stopped = true;
          // a fresh worker takes the place; its decoders serve whoever waits
          queueMicrotask(() => this.#serveWaiting());
        },
      }),
    };
    this.#workers[index] = worker;
    return worker;
  }

  #serveWaiting(): void {
    while (this.#waiting.length > 0) {
      const worker = this.tryAcquire();
      if (worker === null) return;
      const waiter = this.#waiting.shift()!;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(worker);
    }
  }
}
