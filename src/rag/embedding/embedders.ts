import type { RagConfig } from '../../config/config.js';
import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import { ProviderError } from '../../providers/provider-error.js';

/** A preset's `embeddings` section: which provider and model embed an agent's documents and queries. */
export interface EmbeddingSettings {
  provider: string;
  model: string;
}

/** The label an embedder for these settings carries (`<provider>:<model>`), stored on each document. */
function embeddingLabel(settings: EmbeddingSettings): string {
  return `${settings.provider}:${settings.model}`;
}

/**
 * The embedders of a process: one per provider and model, created on first use and shared by
 * every agent that names it. `null` settings (an agent without a preset) stand for the deployment
 * default, `PARLEY_EMBEDDING_PROVIDER` / `PARLEY_EMBEDDING_MODEL`. Local models are found in their
 * folder under MODELS_DIR (`modelDir`, the same lookup as the other local providers); remote ones
 * use `PARLEY_EMBEDDING_BASE_URL` / `PARLEY_EMBEDDING_API_KEY` and the batch size and timeout of
 * the configuration.
 */
export class Embedders {
  private readonly cache = new Map<string, Embedder>();
  private readonly defaults: EmbeddingSettings;

  constructor(
    private readonly config: RagConfig['embedding'],
    private readonly modelDir: (modelId: string) => string,
  ) {
    this.defaults = { provider: config.provider, model: config.model };
  }

  /** The shared embedder for a preset's section (`null`: the deployment default). */
  get(settings: EmbeddingSettings | null): Embedder {
    const { provider, model } = settings ?? this.defaults;
    const label = embeddingLabel({ provider, model });
    let embedder = this.cache.get(label);
    if (embedder === undefined) {
      embedder = this.create(provider, model);
      this.cache.set(label, embedder);
    }
    return embedder;
  }

  /** Stops every embedder's worker threads. */
  async close(): Promise<void> {
    const all = [...this.cache.values()];
    this.cache.clear();
    await Promise.all(all.map((e) => e.close()));
  }

  private create(provider: string, model: string): Embedder {
    const c = this.config;
    switch (provider) {
      case 'local':
        return new LocalEmbedder({
          model,
          modelDir: this.modelDir(model),
          workers: c.workers,
          threadsPerWorker: c.threadsPerWorker,
          batchSize: c.batchSize,
        });
      case 'openai':
        return new OpenAiEmbedder({
          apiKey: c.apiKey,
          baseUrl: c.baseUrl,
          model,
          batchSize: c.batchSize,
          timeoutMs: c.timeoutMs,
        });
      default:
        throw new ProviderError(provider, 'is not an embeddings provider');
    }
  }
}
