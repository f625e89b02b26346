/**
 * Gathers every live stream's due window into one batch and runs it on the VAD worker thread.
 *
 * Policy (what happens when inference falls behind):
 * - One batch runs at a time. A batch starts once it cannot usefully grow: `fullBatch` windows
 *   wait (32: past that a row costs about the same however many more join) or every open stream
 *   has its window waiting (one session alone, or catching up, never waits); otherwise
 *   `batchIntervalMs` (8 ms, a quarter of a window) after the last one started. Windows that
 *   fall due meanwhile wait for the next one, which starts when the reply is in: the slower
 *   inference is, the larger (and cheaper per window) the batches grow, so the worker catches up
 *   instead of queueing. Each batch costs a wake-up of the worker and of the event loop (~80 µs
 *   of the sender's CPU each on small VMs) and ONNX Runtime's fixed cost per run, so fewer,
 *   fuller batches are cheaper; a window waits at most the interval more.
 * - A stream has at most one window in the batcher (its next window needs the state the last one
 *   produced), so a batch holds at most one row per live stream (and at most `maxBatch`; rows past
 *   it go in the next batch). Nothing else queues here.
 * - A stream's audio not yet scored waits in that stream's ring, bounded per session and per
 *   process by the intake (../intake): beyond it frames are dropped and reported as an overrun.
 *   The event loop only ever copies a window into the batch: it never waits for inference.
 * - A batch that fails (the worker crashed) fails its streams; the next batch starts a new worker.
 */
import type { Logger } from 'pino';
import { WorkerClient } from '../../workers/worker-client.js';
import { rollContext, vadInputSamples, vadStateSize, type SileroState } from './silero-format.js';
import type { VadProtocol, VadSharedBuffers, VadWorkerSetup } from './vad-protocol.js';

/** A stream as the batcher sees it: its state (window written) and where the probability goes. */
export interface BatchRow {
  readonly state: SileroState;
  /** The window was scored: `state.rnn` holds the next state and the context has rolled. */
  scored(probability: number): void;
  failed(err: Error): void;
}

export interface VadBatcherOptions extends VadWorkerSetup {
  /** Most rows in one batch. */
  maxBatch: number;
  /**
   * A batch starts at least this long after the one before (unless that one took longer, or
   * `fullBatch` windows wait): windows that fall due meanwhile gather into it. Fewer, larger
   * batches cost less CPU per window and wake the worker less often; each window waits at most
   * this long more.
   */
  batchIntervalMs: number;
  /** This many waiting windows (or every open stream's) start a batch without waiting for the interval. */
  fullBatch: number;
  logger?: Pick<Logger, 'warn'> | undefined;
}

export interface VadBatchStats {
  batches: number;
  /** Windows run on the model. */
  windows: number;
  /** Windows their streams scored 0 without the model: quieter than the silence floor, outside an utterance. */
  skipped: number;
  largestBatch: number;
  /** Rows waiting for the next batch now. */
  waiting: number;
}

const half = vadStateSize / 2;

export class VadBatcher {
  readonly #options: VadBatcherOptions;
  #worker: WorkerClient<VadProtocol> | undefined;
  #waiting: BatchRow[] = [];
  /** Streams open on this batcher: when all of them wait, the batch cannot grow. */
  #open = 0;
  #running: BatchRow[] = [];
  #inFlight = false;
  /** The pending start of the next batch (a timer or an immediate), if one is set. */
  #scheduled: { cancel(): void } | undefined;
  /** When the last batch started (performance.now()). */
  #lastStart = -Infinity;
  #closed = false;
  /** The batch buffers shared with the worker, and their views here. */
  #shared: VadSharedBuffers;
  #input: Float32Array;
  #state: Float32Array;
  #probabilities: Float32Array;
  /** The worker that has `#shared` already (the buffers go along with its first batch). */
  #sharedWith: WorkerClient<VadProtocol> | undefined;
  readonly stats: VadBatchStats = { batches: 0, windows: 0, skipped: 0, largestBatch: 0, waiting: 0 };

  constructor(options: VadBatcherOptions) {
    this.#options = options;
    this.#shared = VadBatcher.#allocate(Math.min(64, options.maxBatch));
    this.#input = new Float32Array(this.#shared.input);
    this.#state = new Float32Array(this.#shared.state);
    this.#probabilities = new Float32Array(this.#shared.probabilities);
  }

  static #allocate(rows: number): VadSharedBuffers {
    const bytes = Float32Array.BYTES_PER_ELEMENT;
    return {
      input: new SharedArrayBuffer(rows * vadInputSamples * bytes),
      state: new SharedArrayBuffer(rows * vadStateSize * bytes),
      probabilities: new SharedArrayBuffer(rows * bytes),
    };
  }

  /** Whether a batch is on the worker now. */
  get inFlight(): boolean {
    return this.#inFlight;
  }

  /** Starts the worker and loads the model; answers the worker thread's nice value (null: unchanged). */
  async warm(): Promise<{ nice: number | null }> {
    const { nice } = await this.#client().call('warm', {});
    if (nice === null && process.platform === 'linux')
      this.#options.logger?.warn('VAD worker could not lower its CPU priority; it competes with the event loop');
    return { nice };
  }

  /** A stream opened (it may submit windows until it `leave`s). */
  join(): void {
    this.#open++;
  }

  /** A stream closed: its waiting window is taken out; a row already running is answered and ignored. */
  leave(row: BatchRow): void {
    this.#open--;
    const at = this.#waiting.indexOf(row);
    if (at !== -1) this.#waiting.splice(at, 1);
    this.stats.waiting = this.#waiting.length;
    if (!this.#inFlight && this.#waiting.length > 0 && this.#full()) this.#startNow();
  }

  /** Whether the waiting rows make a batch that waiting longer would not grow. */
  #full(): boolean {
    return this.#waiting.length >= Math.min(this.#options.fullBatch, this.#open);
  }

  /** Queues `row`'s window (written into `row.state.input`) for the next batch. */
  submit(row: BatchRow): void {
    if (this.#closed) {
      row.failed(new Error('VAD is closed'));
      return;
    }
    this.#waiting.push(row);
    this.stats.waiting = this.#waiting.length;
    if (this.#inFlight) return;
    if (this.#full()) this.#startNow();
    else this.#schedule();
  }

  #startNow(): void {
    this.#scheduled?.cancel();
    this.#scheduled = undefined;
    this.#flush();
  }

  /** Counts a window its stream scored without the model (see VadStream: the silence floor). */
  countSkipped(): void {
    this.stats.skipped++;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#scheduled?.cancel();
    this.#scheduled = undefined;
    for (const row of this.#waiting.splice(0)) row.failed(new Error('VAD is closed'));
    await this.#worker?.close('VAD is closed');
  }

  #client(): WorkerClient<VadProtocol> {
    if (this.#worker === undefined) {
      const { modelPath, intraOpNumThreads } = this.#options;
      const worker: WorkerClient<VadProtocol> = new WorkerClient<VadProtocol>({
        module: { base: import.meta.url, name: 'vad-worker' },
        workerData: { modelPath, intraOpNumThreads } satisfies VadWorkerSetup,
        name: 'VAD',
        onStop: (cause) => {
          if (this.#worker === worker) this.#worker = undefined;
          if (!this.#closed)
            this.#options.logger?.warn({ err: cause }, 'VAD worker stopped; the next batch starts a new one');
        },
      });
      this.#worker = worker;
    }
    return this.#worker;
  }

  /**
   * Starts the next batch once the interval since the last one is up (every window due by then
   * joins it), at once when a full batch waits.
   */
  #schedule(): void {
    if (this.#scheduled || this.#closed || this.#waiting.length === 0) return;
    const go = () => {
      this.#scheduled = undefined;
      this.#flush();
    };
    const wait = this.#full() ? 0 : this.#lastStart + this.#options.batchIntervalMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(go, wait);
      this.#scheduled = { cancel: () => clearTimeout(timer) };
    } else {
      const immediate = setImmediate(go);
      this.#scheduled = { cancel: () => clearImmediate(immediate) };
    }
  }

  #flush(): void {
    if (this.#inFlight || this.#closed || this.#waiting.length === 0) return;
    this.#lastStart = performance.now();
    const batch = Math.min(this.#waiting.length, this.#options.maxBatch);
    // swap the lists: the first `batch` waiting rows run, the rest stay waiting
    const rows = this.#waiting;
    this.#waiting = this.#running;
    this.#waiting.length = 0;
    for (let i = batch; i < rows.length; i++) this.#waiting.push(rows[i]!);
    rows.length = batch;
    this.#running = rows;
    this.stats.waiting = this.#waiting.length;

    if (this.#probabilities.length < batch) {
      const rows = Math.min(this.#options.maxBatch, Math.max(batch, this.#probabilities.length * 2));
      this.#shared = VadBatcher.#allocate(rows);
      this.#input = new Float32Array(this.#shared.input);
      this.#state = new Float32Array(this.#shared.state);
      this.#probabilities = new Float32Array(this.#shared.probabilities);
      this.#sharedWith = undefined;
    }
    const input = this.#input;
    const state = this.#state;
    for (let b = 0; b < batch; b++) {
      const s = rows[b]!.state;
      input.set(s.input, b * vadInputSamples);
      // [2, B, 128]: row b's h at b, its c at B + b (plain loops: no views made per window)
      const rnn = s.rnn;
      const h = b * half;
      const c = (batch + b) * half;
      for (let i = 0; i < half; i++) {
        state[h + i] = rnn[i]!;
        state[c + i] = rnn[half + i]!;
      }
    }
    this.#inFlight = true;
    this.stats.batches++;
    this.stats.windows += batch;
    if (batch > this.stats.largestBatch) this.stats.largestBatch = batch;
    const worker = this.#client();
    const buffers = this.#sharedWith === worker ? undefined : this.#shared;
    this.#sharedWith = worker;
    worker.call('infer', buffers === undefined ? { batch } : { batch, buffers }).then(
      () => this.#scatter(batch),
      (err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err))),
    );
  }

  #scatter(batch: number): void {
    const state = this.#state;
    const probabilities = this.#probabilities;
    const rows = this.#running;
    for (let b = 0; b < batch; b++) {
      const s = rows[b]!.state;
      const rnn = s.rnn;
      const h = b * half;
      const c = (batch + b) * half;
      for (let i = 0; i < half; i++) {
        rnn[i] = state[h + i]!;
        rnn[half + i] = state[c + i]!;
      }
      rollContext(s);
    }
    // Answering queues each stream's next window (and may close streams); the batch counts as in
    // flight until every row is answered, so nothing starts the next one halfway through this loop.
    for (let b = 0; b < batch; b++) {
      const row = rows[b]!;
      try {
        row.scored(probabilities[b]!);
      } catch (err) {
        // one stream's sink throwing must not stall the rest of the batch (and every later one)
        row.failed(err instanceof Error ? err : new Error(String(err)));
      }
    }
    rows.length = 0;
    this.#inFlight = false;
    this.#schedule();
  }

  #fail(err: Error): void {
    const rows = this.#running;
    this.#running = [];
    for (const row of rows) row.failed(err);
    this.#inFlight = false;
    this.#schedule();
  }
}
