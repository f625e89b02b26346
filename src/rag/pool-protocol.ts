import type { ChunkOptions, TextChunk } from './chunker.js';

/** What each embedding worker thread is started with. */
export interface WorkerSetup {
  modelsDir: string;
  /** Model folder under modelsDir; null for a pool that only chunks (remote embeddings). */
  modelId: string | null;
  /** ONNX Runtime intra-op threads per worker. */
  threads: number;
}

export type PoolRequest =
  | { id: number; type: 'embed'; texts: string[] }
  | { id: number; type: 'chunk'; text: string; options: ChunkOptions }
  | { id: number; type: 'warm' };

export type PoolResponse =
  | { id: number; ok: true; type: 'embed'; data: Float32Array; dims: number; threadId: number }
  | { id: number; ok: true; type: 'chunk'; chunks: TextChunk[]; threadId: number }
  | { id: number; ok: true; type: 'warm'; threadId: number }
  | { id: number; ok: false; message: string; threadId: number };
