/** Messages between a LocalModel (main thread) and its worker thread (model-worker.ts). */

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

export type ModelRequest =
  | { id: number; type: 'load' }
  /** 16 kHz mono float samples in [-1, 1]; `language` only for multilingual models. */
  | { id: number; type: 'transcribe'; audio: Float32Array; language: string | null; maxNewTokens: number | null }
  | { id: number; type: 'synthesize'; text: string };

export type ModelResponse =
  | { id: number; ok: true; type: 'load' }
  | { id: number; ok: true; type: 'transcribe'; text: string }
  | { id: number; ok: true; type: 'synthesize'; audio: Float32Array; sampleRate: number }
  | { id: number; ok: false; message: string };

export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
