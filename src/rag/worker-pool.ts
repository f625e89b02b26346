import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChunkOptions, TextChunk } from './chunker.js';
import type { PoolRequest, PoolResponse, WorkerSetup } from './pool-protocol.js';

export interface EmbeddingPoolOptions extends WorkerSetup {
  /** Worker threads. */
  size: number;
}

interface Pending {
  resolve: (res: PoolResponse & { ok: true }) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  threadId: number;
  inFlight: number;
  done: number;
  pending: Map<number, Pending>;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * The compiled worker next to this file; when running from source (tsx, vitest) the TypeScript file,
 * loaded through tsx's loader registered inside the worker (`--import tsx` does not reach workers on Node 20).
 */
function workerEntry(): URL | string {
  const js = new URL('./embed-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return js;
  const ts = new URL('./embed-worker.ts', import.meta.url);
  return `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(ts.href)}); });`;
}

/**
 * A small pool of worker threads, each holding its own copy of the embedding model, so
 * tokenising, chunking and inference never block the event loop. Each task goes to the worker with
 * the fewest in flight; a worker that dies is replaced and its tasks fail.
 */
export class EmbeddingPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  /** Threads start on first use, so an instance that never ingests or searches runs none. */
  constructor(private readonly options: EmbeddingPoolOptions) {}

  get size(): number {
    return Math.max(1, this.options.size);
  }

  /** Loads the model in every worker (otherwise the first task of each worker does). */
  async warm(): Promise<void> {
    this.ensureStarted();
    await Promise.all(this.slots.map((slot) => this.send(slot, { type: 'warm' })));
  }

  /** One batch through one worker: unit-length vectors, in input order. */
  async embedBatch(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const res = await this.send(this.pick(), { type: 'embed', texts });
    if (res.type !== 'embed') throw new Error('unexpected worker reply');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) out.push(res.data.subarray(i * res.dims, (i + 1) * res.dims));
    return out;
  }

  async chunk(text: string, options: ChunkOptions): Promise<TextChunk[]> {
    const res = await this.send(this.pick(), { type: 'chunk', text, options });
    if (res.type !== 'chunk') throw new Error('unexpected worker reply');
    return res.chunks;
  }

  /** Tasks completed by each worker thread (thread id → count), to show the pool is used. */
  stats(): { threadId: number; done: number; inFlight: number }[] {
    return this.slots.map((s) => ({ threadId: s.threadId, done: s.done, inFlight: s.inFlight }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private ensureStarted(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  private pick(): Slot {
    this.ensureStarted();
    let best = this.slots[0]!;
    for (const s of this.slots) if (s.inFlight < best.inFlight) best = s;
    return best;
  }

  private send(slot: Slot, req: WithoutId<PoolRequest>): Promise<PoolResponse & { ok: true }> {
    if (this.closed) return Promise.reject(new Error('embedding pool is closed'));
    const id = this.nextId++;
    // An idle worker never keeps the process alive; one with work does.
    if (slot.inFlight++ === 0) slot.worker.ref();
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...req, id } as PoolRequest);
    });
  }

  private spawn(): Slot {
    const entry = workerEntry();
    const setup: WorkerSetup = {
      modelsDir: this.options.modelsDir,
      modelId: this.options.modelId,
      threads: this.options.threads,
    };
    const worker = new Worker(entry, { workerData: setup, eval: typeof entry === 'string', execArgv: [] });
    const slot: Slot = { worker, threadId: worker.threadId, inFlight: 0, done: 0, pending: new Map() };
    worker.on('message', (res: PoolResponse) => {
      const p = slot.pending.get(res.id);
      if (p === undefined) return;
      slot.pending.delete(res.id);
      if (--slot.inFlight === 0) worker.unref();
      slot.done++;
      if (res.ok) p.resolve(res);
      else p.reject(new Error(res.message));
    });
    const failPending = (err: Error) => {
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      slot.inFlight = 0;
    };
    worker.on('error', (err) => failPending(err));
    worker.on('exit', (code) => {
      failPending(new Error(`embedding worker exited with code ${code}`));
      const index = this.slots.indexOf(slot);
      if (!this.closed && index !== -1) this.slots[index] = this.spawn();
    });
    worker.unref();
    return slot;
  }
}
