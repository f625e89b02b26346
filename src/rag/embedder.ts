import type { ChunkOptions, TextChunk } from './chunker.js';
import { openAiClient } from '../providers/openai/client.js';
import { EmbeddingPool } from './worker-pool.js';

/** Turns texts into unit-length vectors and documents into chunks (with the matching tokenizer). */
export interface Embedder {
  /** `<provider>:<model>`, stored on each document. */
  readonly label: string;
  /** Unit-length vectors, in input order; batched internally. */
  embed(texts: string[]): Promise<Float32Array[]>;
  chunk(text: string, options: ChunkOptions): Promise<TextChunk[]>;
  /** Loads models ahead of the first request. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface LocalEmbedderOptions {
  modelsDir: string;
  /** Folder under modelsDir, e.g. `Xenova/all-MiniLM-L6-v2`. */
  model: string;
  /** Worker threads. */
  workers: number;
  /** ONNX Runtime threads per worker. */
  threadsPerWorker: number;
  /** Texts per inference call. */
  batchSize: number;
}

/** Batches of `size`, sent to the pool at once so every worker is busy, results in order. */
async function inBatches(
  texts: string[],
  size: number,
  run: (batch: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const batches: Promise<Float32Array[]>[] = [];
  for (let i = 0; i < texts.length; i += size) batches.push(run(texts.slice(i, i + size)));
  return (await Promise.all(batches)).flat();
}

/** transformers.js feature extraction (mean pooling, normalised) in a pool of worker threads. */
export class LocalEmbedder implements Embedder {
  readonly label: string;
  readonly pool: EmbeddingPool;

  constructor(private readonly options: LocalEmbedderOptions) {
    this.label = `local:${options.model}`;
    this.pool = new EmbeddingPool({
      size: options.workers,
      modelsDir: options.modelsDir,
      modelId: options.model,
      threads: options.threadsPerWorker,
    });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return inBatches(texts, this.options.batchSize, (batch) => this.pool.embedBatch(batch));
  }

  chunk(text: string, options: ChunkOptions): Promise<TextChunk[]> {
    return this.pool.chunk(text, options);
  }

  warm(): Promise<void> {
    return this.pool.warm();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export interface OpenAiEmbedderOptions {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  model: string;
  batchSize: number;
  timeoutMs: number;
}

function normalised(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, LiteLLM…). Vectors are
 * normalised here, whatever the server does. Chunking runs in one worker thread with token counts
 * estimated at 4 characters per token, since the remote tokenizer is not available.
 */
export class OpenAiEmbedder implements Embedder {
  readonly label: string;
  private readonly pool: EmbeddingPool;

  constructor(
    private readonly options: OpenAiEmbedderOptions,
    modelsDir: string,
  ) {
    this.label = `openai:${options.model}`;
    this.pool = new EmbeddingPool({ size: 1, modelsDir, modelId: null, threads: 1 });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    const client = openAiClient({ apiKey: this.options.apiKey, baseUrl: this.options.baseUrl });
    return inBatches(texts, this.options.batchSize, async (batch) => {
      const res = await client.embeddings.create(
        { model: this.options.model, input: batch, encoding_format: 'float' },
        { timeout: this.options.timeoutMs },
      );
      const byIndex = [...res.data].sort((a, b) => a.index - b.index);
      if (byIndex.length !== batch.length)
        throw new Error(`embeddings endpoint returned ${byIndex.length} vectors for ${batch.length} inputs`);
      return byIndex.map((d) => normalised(d.embedding));
    });
  }

  chunk(text: string, options: ChunkOptions): Promise<TextChunk[]> {
    return this.pool.chunk(text, options);
  }

  async warm(): Promise<void> {}

  close(): Promise<void> {
    return this.pool.close();
  }
}
