import type { ChunkOptions, TextChunk } from '../chunker.js';
import { inBatches, type Embedder } from './embedder.js';
import { EmbeddingPool } from './embedding-pool.js';
import { openAiClient } from '../../providers/openai/client.js';

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

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.label = `openai:${options.model}`;
    this.pool = new EmbeddingPool({ size: 1, modelDir: null, threads: 1 });
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

  async unavailable(): Promise<string | null> {
    if (this.options.apiKey !== undefined || this.options.baseUrl !== undefined) return null;
    return (
      `no embedding API for ${this.label}: set OPENAI_API_KEY (or PARLEY_EMBEDDING_API_KEY), and OPENAI_BASE_URL ` +
      'for an OpenAI-compatible server; or install the local model (npm run models) and set PARLEY_EMBEDDING_PROVIDER=local'
    );
  }

  async warm(): Promise<void> {}

  close(): Promise<void> {
    return this.pool.close();
  }
}
