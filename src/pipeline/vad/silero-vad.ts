/**
 * Silero VAD v5 for a whole process: one worker thread holds the model, and every live stream's
 * due windows run there together as one batch (vad-batcher.ts: the batching and what happens when
 * inference falls behind). Each stream keeps its own RNN state, context and ring on the main
 * thread; the event loop only copies windows in and probabilities out. Windows under the silence
 * floor outside an utterance never reach the worker (silence-floor.ts, vad-stream.ts).
 */
import type { Logger } from 'pino';
import { defaultSilenceFloorDbfs, silenceFloorEnergy, type SilenceFloorDbfs } from './silence-floor.js';
import { defaultSileroModelPath } from './silero-model.js';
import { VadBatcher, type VadBatchStats } from './vad-batcher.js';
import { VadStream, type VadSink, type VadStreamOptions } from './vad-stream.js';

export interface SileroVadLoadOptions {
  /** Path of the Silero v5 ONNX file; defaults to the one inside @livekit/agents-plugin-silero. */
  modelPath: string;
  /** ONNX Runtime intra-op threads of the worker; 1 leaves the other cores to the event loop. */
  intraOpNumThreads: number;
  /** Most windows in one batch. */
  maxBatch: number;
  /** Least time between two batches' starts (windows due meanwhile join the next one), unless `fullBatch` wait. */
  batchIntervalMs: number;
  /** Windows waiting that start a batch at once. */
  fullBatch: number;
  /** Windows quieter than this outside an utterance are scored 0 without the model; `off`: none are. */
  silenceFloorDbfs: SilenceFloorDbfs;
  logger: Pick<Logger, 'warn'>;
}

export class SileroVad {
  readonly #batcher: VadBatcher;
  readonly #silenceFloorDbfs: SilenceFloorDbfs;
  #closed = false;

  private constructor(
    batcher: VadBatcher,
    silenceFloorDbfs: SilenceFloorDbfs,
    /** The VAD worker thread's nice value, below the event loop's; null where it could not be lowered. */
    readonly workerNice: number | null,
  ) {
    this.#batcher = batcher;
    this.#silenceFloorDbfs = silenceFloorDbfs;
  }

  /** Starts the worker and loads the model in it. */
  static async load(options: Partial<SileroVadLoadOptions> = {}): Promise<SileroVad> {
    const silenceFloorDbfs = options.silenceFloorDbfs ?? defaultSilenceFloorDbfs;
    silenceFloorEnergy(silenceFloorDbfs); // a bad floor fails here, not at the first stream
    const batcher = new VadBatcher({
      modelPath: options.modelPath ?? defaultSileroModelPath(),
      intraOpNumThreads: options.intraOpNumThreads ?? 1,
      maxBatch: options.maxBatch ?? 1024,
      batchIntervalMs: options.batchIntervalMs ?? 8,
      fullBatch: options.fullBatch ?? 32,
      logger: options.logger,
    });
    const { nice } = await batcher.warm();
    return new SileroVad(batcher, silenceFloorDbfs, nice);
  }

  /** A new stream with its own state; options are per stream (per agent), the silence floor this VAD's unless given. */
  stream(options: Partial<VadStreamOptions>, sink: VadSink): VadStream {
    if (this.#closed) throw new Error('SileroVad is closed');
    const silenceFloorDbfs = options.silenceFloorDbfs ?? this.#silenceFloorDbfs;
    return new VadStream(this.#batcher, { ...options, silenceFloorDbfs }, sink);
  }

  /** Batches run so far, windows run on the model and windows skipped (silence floor), the largest batch. */
  get stats(): Readonly<VadBatchStats> {
    return this.#batcher.stats;
  }

  /** Whether a batch is on the worker now (tests use it to act mid-batch). */
  get batchInFlight(): boolean {
    return this.#batcher.inFlight;
  }

  /** Stops the worker; streams still open get an error. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#batcher.close();
  }
}
