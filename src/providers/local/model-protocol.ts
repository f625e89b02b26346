/** Requests between a LocalModel (main thread) and its worker thread (model-worker.ts). */

export type ModelTask = 'automatic-speech-recognition' | 'text-to-speech';

/** What a model worker is started with. */
export interface ModelWorkerSetup {
  task: ModelTask;
  /** Absolute folder in transformers.js layout (config.json, onnx/, tokenizer files). */
  modelDir: string;
  /** transformers.js dtype: picks the ONNX file variant (`q8` → `*_quantized.onnx`). */
  dtype: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  /** ONNX Runtime intra-op threads. */
  threads: number;
}

export type ModelProtocol = {
  load: { request: Record<string, never>; reply: Record<string, never> };
  /** 16 kHz mono float samples in [-1, 1]; `language` only for multilingual models. */
  transcribe: {
    request: { audio: Float32Array; language: string | null; maxNewTokens: number | null };
    reply: { text: string };
  };
  synthesize: { request: { text: string }; reply: { audio: Float32Array; sampleRate: number } };
};
