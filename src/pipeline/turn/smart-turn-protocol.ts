/** What the Smart Turn worker thread (smart-turn-worker.ts) is started with. */
export interface SmartTurnWorkerSetup {
  /** The ONNX file. */
  modelPath: string;
  /** ONNX Runtime intra-op threads (1: the check runs on the worker's own thread). */
  threads: number;
}

/** One check's result and what it cost on the worker thread. */
export interface SmartTurnCheck {
  /** Probability (0–1) that the turn is complete. */
  probability: number;
  /** Wall time of the log-mel features. */
  featuresMs: number;
  /** Wall time of the ONNX inference. */
  inferenceMs: number;
  /** CPU time the worker thread used for the check (Linux; 10 ms ticks, so exact only summed over many; NaN elsewhere). */
  cpuMs: number;
}

/** Requests between a SmartTurnModel (main thread) and its worker thread. */
export type SmartTurnProtocol = {
  /** Loads the model and runs it once on silence (so the first real check is not the slow one). */
  load: { request: Record<string, never>; reply: { inputs: string[]; outputs: string[] } };
  /** `audio`: the utterance's last (up to) 8 s, 16 kHz PCM16, moved to the worker. */
  check: { request: { audio: Int16Array }; reply: SmartTurnCheck };
};
