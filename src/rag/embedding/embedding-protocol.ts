import type { ChunkOptions, TextChunk } from '../chunker.js';

/** What each embedding worker thread (embed-worker.ts) is started with. */
export interface EmbeddingWorkerSetup {
  /** The model's folder (transformers.js layout); null for a pool that only chunks (remote embeddings). */
  modelDir: string | null;
  /** ONNX Runtime intra-op threads per worker. */
  threads: number;
}

/** Requests between an EmbeddingPool (main thread) and its worker threads. */
export type EmbeddingProtocol = {
  /** Unit-length vectors, `dims` floats each, back to back in input order. */
  embed: { request: { texts: string[] }; reply: { data: Float32Array; dims: number } };
  chunk: { request: { text: string; options: ChunkOptions }; reply: { chunks: TextChunk[] } };
  warm: { request: Record<string, never>; reply: Record<string, never> };
};
