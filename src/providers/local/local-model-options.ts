import type { ModelWorkerSetup } from './model-protocol.js';

/** How a local (transformers.js) provider runs its model. */
export interface LocalModelOptions {
  /** ONNX file variant: `q8` loads `onnx/*_quantized.onnx` (what `npm run models` fetches). */
  dtype: ModelWorkerSetup['dtype'];
  /** ONNX Runtime intra-op threads of the model's worker. */
  threads: number;
}

export const defaultLocalModelOptions: LocalModelOptions = {
  dtype: 'q8',
  threads: 2,
};
