/** Requests between the VAD batcher (main thread) and the VAD worker thread (vad-worker.ts). */

export interface VadWorkerSetup {
  modelPath: string;
  intraOpNumThreads: number;
}

/**
 * The batch buffers, shared by both threads (no copy, no transfer per batch): `input` rows of
 * [context 64 | window 512], `state` as [2, B, 128] for the batch's B, one probability per row.
 * Only one batch runs at a time, so each side touches them only while the other does not.
 */
export interface VadSharedBuffers {
  input: SharedArrayBuffer;
  state: SharedArrayBuffer;
  probabilities: SharedArrayBuffer;
}

export type VadProtocol = {
  /**
   * Scores the first `batch` rows of the shared buffers: writes the next states over `state` and
   * the probabilities into `probabilities`. `buffers` comes with the first batch a worker sees and
   * whenever the batcher grew them.
   */
  infer: { request: { batch: number; buffers?: VadSharedBuffers }; reply: Record<string, never> };
  /**
   * Resolves once the model is loaded, with the worker thread's nice value (null: it could not
   * lower its priority, see workers/thread-priority.ts).
   */
  warm: { request: Record<string, never>; reply: { nice: number | null } };
};
