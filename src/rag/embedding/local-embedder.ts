import type { ChunkOptions, TextChunk } from '../chunker.js';
import { inBatches, type Embedder } from './embedder.js';
import { localEmbeddingModelMissing } from './embed-model-check.js';
import { EmbeddingPool } from './embedding-pool.js';

export interface LocalEmbedderOptions {
  /** The model's id, e.g. `Xenova/all-MiniLM-L6-v2` (the label says it). */
  model: string;
  /** Its folder in transformers.js layout, `<MODELS_DIR>/<model id>` (see ProviderRegistry.modelDir). */
  modelDir: string;
  /** Worker threads. */
  workers: number;
  /** ONNX Runtime threads per worker. */
  threadsPerWorker: number;
  /** Texts per inference call. */
  batchSize: number;
}

/** transformers.js feature extraction (mean pooling, normalised) in a pool of worker threads. */
export class LocalEmbedder implements Embedder {
  readonly label: string;
  readonly pool: EmbeddingPool;

  constructor(private readonly options: LocalEmbedderOptions) {
    this.label = `local:${options.model}`;
    this.pool = new EmbeddingPool({
      size: options.workers,
      modelDir: options.modelDir,
      threads: options.threadsPerWorker,
    });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return inBatches(texts, this.options.batchSize, (batch) => this.pool.embedBatch(batch));
  }

  chunk(text: string, options: ChunkOptions): Promise<TextChunk[]> {
    return this.pool.chunk(text, options);
  }

  unavailable(): Promise<string | null> {
    return localEmbeddingModelMissing(this.options.model, this.options.modelDir);
  }

  warm(): Promise<void> {
    return this.pool.warm();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
