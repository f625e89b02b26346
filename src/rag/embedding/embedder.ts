import type { ChunkOptions, TextChunk } from '../chunker.js';

/** Turns texts into unit-length vectors and documents into chunks (with the matching tokenizer). */
export interface Embedder {
  /** `<provider>:<model>`, stored on each document. */
  readonly label: string;
  /** Unit-length vectors, in input order; batched internally. */
  embed(texts: string[]): Promise<Float32Array[]>;
  chunk(text: string, options: ChunkOptions): Promise<TextChunk[]>;
  /**
   * Why this embedder cannot embed here, naming the missing model and the fix; null when it can.
   * Cheap (a look at the model's folder or the configuration), never loads a model.
   */
  unavailable(): Promise<string | null>;
  /** Loads models ahead of the first request. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Batches of `size`, started at once (so every worker is busy), results in input order. */
export async function inBatches(
  texts: string[],
  size: number,
  run: (batch: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const batches: Promise<Float32Array[]>[] = [];
  for (let i = 0; i < texts.length; i += size) batches.push(run(texts.slice(i, i + size)));
  return (await Promise.all(batches)).flat();
}
