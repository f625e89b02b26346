/** Requests between the VAD batcher (main thread) and the VAD worker thread (vad-worker.ts). */

export interface VadWorkerSetup {
  modelPath: string;
  intraOpNumThreads: number;
}

export type VadProtocol = {
  /**
   * One batch: `input` is [batch, 576], `state` is [2, batch, 128]. The reply hands both buffers
   * back (moved, not copied, both ways) with `state` holding the next states, and one probability
   * per row.
   */
  infer: {
    request: { input: Float32Array; state: Float32Array; batch: number };
    reply: { input: Float32Array; state: Float32Array; probabilities: Float32Array };
  };
  /** Resolves once the model is loaded. */
  warm: { request: Record<string, never>; reply: Record<string, never> };
};
