import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ProviderError } from '../provider-error.js';
import type { ModelRequest, ModelResponse, ModelWorkerSetup, WithoutId } from './model-protocol.js';

type Reply = ModelResponse & { ok: true };

interface Job {
  id: number;
  request: WithoutId<ModelRequest>;
  transfer: ArrayBuffer[];
  signal: AbortSignal | undefined;
  resolve: (res: Reply) => void;
  reject: (err: unknown) => void;
  onAbort: () => void;
  /** The caller was answered already (aborted); the worker's reply is dropped. */
  settled: boolean;
}

/**
 * The compiled worker next to this file; under tsx/vitest, the TypeScript source through a shim
 * that registers tsx inside the worker first (Node 20 ignores `--import` in a worker's execArgv).
 */
function workerEntry(): URL {
  const js = new URL('./model-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return js;
  const ts = new URL('./model-worker.ts', import.meta.url).href;
  const shim = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\nregister();\nawait import(${JSON.stringify(ts)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(shim)}`);
}

const keyOf = (s: ModelWorkerSetup) => `${s.task}\u0000${s.modelDir}\u0000${s.dtype}\u0000${s.threads}`;

/**
 * One transformers.js model in its own worker thread, loaded once per process and shared by every
 * session (`LocalModel.load` returns the same instance for the same setup). Requests run one at a
 * time in arrival order; a request aborted while queued never runs, one aborted while running is
 * answered at once and its result dropped (ONNX inference cannot be interrupted). A worker that
 * dies fails its requests and is replaced by the next `load`.
 */
export class LocalModel {
  private static readonly loaded = new Map<string, Promise<LocalModel>>();
  private static readonly ready = new Map<string, LocalModel>();

  private readonly worker: Worker;
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private nextId = 1;
  private dead: Error | undefined;
  /** Requests the worker has finished (for tests and metrics). */
  completed = 0;

  /**
   * The shared model for `setup`, loading it on first use. Rejects with a ProviderError naming
   * `provider` when the folder is not a model or the model does not load; a failed load is retried
   * by the next call.
   */
  static load(setup: ModelWorkerSetup, provider: string): Promise<LocalModel> {
    const key = keyOf(setup);
    const cached = LocalModel.loaded.get(key);
    if (cached !== undefined) return cached;
    const loading = (async () => {
      if (!existsSync(join(setup.modelDir, 'config.json'))) {
        throw new ProviderError(
          provider,
          `model not installed: ${setup.modelDir} has no config.json (run \`npm run models\`, or point MODELS_DIR at the models)`,
        );
      }
      const model = new LocalModel(setup, provider, key);
      try {
        await model.run({ type: 'load' });
      } catch (err) {
        await model.close();
        const why = err instanceof Error ? err.message : String(err);
        throw new ProviderError(provider, `model in ${setup.modelDir} did not load: ${why}`, { cause: err });
      }
      if (model.dead === undefined) LocalModel.ready.set(key, model);
      return model;
    })();
    LocalModel.loaded.set(key, loading);
    // The caller gets the rejection; this only forgets the failed load, so the next call tries again.
    loading.catch(() => {
      if (LocalModel.loaded.get(key) === loading) LocalModel.loaded.delete(key);
    });
    return loading;
  }

  /** Stops every loaded model's worker (shutdown, tests). */
  static async closeAll(): Promise<void> {
    const models = await Promise.allSettled([...LocalModel.loaded.values()]);
    await Promise.all(models.map((m) => (m.status === 'fulfilled' ? m.value.close() : undefined)));
  }

  private constructor(
    readonly setup: ModelWorkerSetup,
    private readonly provider: string,
    private readonly key: string,
  ) {
    this.worker = new Worker(workerEntry(), { workerData: setup });
    this.worker.unref(); // held only while a request is in flight
    this.worker.on('message', (res: ModelResponse) => this.settle(res));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`model worker exited with code ${code}`)));
  }

  /** The worker thread's id: the same for every request on one loaded model. */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** Queues a request; `transfer` moves buffers to the worker instead of copying them. */
  run(request: WithoutId<ModelRequest>, signal?: AbortSignal, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.dead !== undefined) return Promise.reject(this.dead);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Reply>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        request,
        transfer,
        signal,
        resolve,
        reject,
        settled: false,
        onAbort: () => {
          if (job.settled) return;
          job.settled = true;
          const queued = this.queue.indexOf(job);
          if (queued !== -1) this.queue.splice(queued, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.fail(new Error('model is closed'));
    await this.worker.terminate();
  }

  private pump(): void {
    if (this.running !== undefined || this.dead !== undefined) return;
    const job = this.queue.shift();
    if (job === undefined) {
      this.worker.unref();
      return;
    }
    this.running = job;
    this.worker.ref();
    this.worker.postMessage({ ...job.request, id: job.id } as ModelRequest, job.transfer);
  }

  private settle(res: ModelResponse): void {
    const job = this.running;
    if (job === undefined || job.id !== res.id) return;
    this.running = undefined;
    this.completed++;
    job.signal?.removeEventListener('abort', job.onAbort);
    if (!job.settled) {
      job.settled = true;
      if (res.ok) job.resolve(res);
      else job.reject(new ProviderError(this.provider, res.message));
    }
    this.pump();
  }

  private fail(cause: Error): void {
    if (this.dead !== undefined) return;
    this.dead = new ProviderError(this.provider, `model worker stopped: ${cause.message}`, { cause });
    if (LocalModel.ready.get(this.key) === this) {
      LocalModel.ready.delete(this.key);
      LocalModel.loaded.delete(this.key);
    }
    for (const job of [...(this.running === undefined ? [] : [this.running]), ...this.queue.splice(0)]) {
      job.signal?.removeEventListener('abort', job.onAbort);
      if (!job.settled) {
        job.settled = true;
        job.reject(this.dead);
      }
    }
    this.running = undefined;
  }
}
