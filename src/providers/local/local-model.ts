import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient, type CallOptions } from '../../workers/worker-client.js';
import { ProviderError } from '../provider-error.js';
import type { ModelProtocol, ModelWorkerSetup } from './model-protocol.js';

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

  private readonly worker: WorkerClient<ModelProtocol>;

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
        await model.call('load', {});
      } catch (err) {
        await model.close();
        const why = err instanceof Error ? err.message : String(err);
        throw new ProviderError(provider, `model in ${setup.modelDir} did not load: ${why}`, { cause: err });
      }
      if (!model.stopped) LocalModel.ready.set(key, model);
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

  private stopped = false;

  private constructor(
    readonly setup: ModelWorkerSetup,
    provider: string,
    private readonly key: string,
  ) {
    this.worker = new WorkerClient<ModelProtocol>({
      module: { base: import.meta.url, name: 'model-worker' },
      workerData: setup,
      name: 'model',
      maxInFlight: 1,
      replyError: (message) => new ProviderError(provider, message),
      stopError: (cause) => new ProviderError(provider, `model worker stopped: ${cause.message}`, { cause }),
      onStop: () => this.forget(),
    });
  }

  /** The worker thread's id: the same for every request on one loaded model. */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** Requests the worker has finished (for tests and metrics). */
  get completed(): number {
    return this.worker.completed;
  }

  /** Queues a request; `options.transfer` moves buffers to the worker instead of copying them. */
  call<T extends keyof ModelProtocol>(
    type: T,
    body: ModelProtocol[T]['request'],
    options?: CallOptions,
  ): Promise<ModelProtocol[T]['reply']> {
    return this.worker.call(type, body, options);
  }

  close(): Promise<void> {
    return this.worker.close('model is closed');
  }

  private forget(): void {
    this.stopped = true;
    if (LocalModel.ready.get(this.key) === this) {
      LocalModel.ready.delete(this.key);
      LocalModel.loaded.delete(this.key);
    }
  }
}
