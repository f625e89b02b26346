import { basename, dirname } from 'node:path';
import { findProvider } from '../../schemas/provider-catalog.js';
import { ModelFolders } from '../../providers/status/model-folders.js';

/** The other way to get embeddings, named in every "no embedding model" message. */
export const openAiEmbeddingsHint =
  'or embed through an OpenAI-compatible API: PARLEY_EMBEDDING_PROVIDER=openai with OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)';

/**
 * Why a local embedding model cannot be used, or null when its folder has config.json and a
 * readable .onnx file under onnx/ (the check the provider status uses, `ModelFolders`). The
 * message names the model, the folder looked in and both fixes; never a transformers.js internal.
 */
export async function localEmbeddingModelMissing(model: string, modelDir: string): Promise<string | null> {
  const problem = await new ModelFolders(dirname(modelDir)).unreadable(basename(modelDir));
  if (problem === null) return null;
  const info = findProvider('embeddings', 'local');
  const reason =
    info === undefined
      ? `no model installed in MODELS_DIR: expected a folder with config.json and onnx/ for ${model}`
      : ModelFolders.missingReason({ ...info, models: [model] });
  return `no embedding model local:${model}: ${reason}; looked in ${modelDir} (${problem}); ${openAiEmbeddingsHint}`;
}
