import type { ChunkOptions, TextChunk } from '../chunker.js';
import { WorkerClient } from '../../workers/worker-client.js';
import type { EmbeddingProtocol, EmbeddingWorkerSetup } from './embedding-protocol.js';

export interface EmbeddingPoolOptions extends EmbeddingWorkerSetup {
  /** Worker threads. */
  size: number;
}

/**
 * A small pool of worker threads, each holding its own copy of the embedding model, so
 * tokenising, chunking and inference never block the event loop. Each request goes to the worker
 * with the fewest in flight; a worker that dies fails its requests and is replaced.
 */
export class EmbeddingPool {
  private readonly workers: WorkerClient<EmbeddingProtocol>[] = [];
  private closed = false;

  /** Threads start on first use, so an instance that never ingests or searches runs none. */
  constructor(private readonly options: EmbeddingPoolOptions) {}

  get size(): number {
    return Math.max(1, this.options.size);
  }

  /** Loads the model in every worker (otherwise the first request of each worker does). */
  async warm(): Promise<void> {
    this.ensureStarted();
    await Promise.all(this.workers.map((w) => w.call('warm', {})));
  }

  /** One batch through one worker: unit-length vectors, in input order. */
  async embedBatch(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { data, dims } = await this.pick().call('embed', { texts });
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) out.push(data.subarray(i * dims, (i + 1) * dims));
    return out;
  }

  async chunk(text: string, options: ChunkOptions): Promise<TextChunk[]> {
    return (await this.pick().call('chunk', { text, options })).chunks;
  }

  /** Requests completed by each worker thread, to show the pool is used. */
  stats(): { threadId: number; done: number; inFlight: number }[] {
    return this.workers.map((w) => ({ threadId: w.threadId, done: w.completed, inFlight: w.inFlight }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.close('embedding pool is closed')));
  }

  private ensureStarted(): void {
    if (this.closed) throw new Error('embedding pool is closed');
    while (this.workers.length < this.size) this.workers.push(this.spawn());
  }

  private pick(): WorkerClient<EmbeddingProtocol> {
    this.ensureStarted();
    let best = this.workers[0]!;
    for (const w of this.workers) if (w.inFlight < best.inFlight) best = w;
    return best;
  }

  private spawn(): WorkerClient<EmbeddingProtocol> {
    const { modelDir, threads } = this.options;
    const worker: WorkerClient<EmbeddingProtocol> = new WorkerClient<EmbeddingProtocol>({
      module: { base: import.meta.url, name: 'embed-worker' },
      workerData: { modelDir, threads } satisfies EmbeddingWorkerSetup,
      name: 'embedding',
      onStop: () => {
        const index = this.workers.indexOf(worker);
        if (!this.closed && index !== -1) this.workers[index] = this.spawn();
      },
    });
    return worker;
  }
}
