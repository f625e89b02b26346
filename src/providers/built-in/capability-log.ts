import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { builtInCapabilities, type BuiltInPreset } from './built-in-preset.js';
import type { Usability } from './usability.js';

/**
 * Start-up says, one line per capability, what the built-in preset uses here or what is missing
 * and how to fix it; embeddings are the deployment's (PARLEY_EMBEDDING_*). A warning for each
 * capability that cannot work, so a first run never looks healthier than it is.
 */
export function logCapabilities(
  logger: Logger,
  builtIn: BuiltInPreset,
  usability: Usability,
  embedding: Config['rag']['embedding'],
): void {
  for (const capability of builtInCapabilities) {
    const choice = builtIn.choices[capability];
    const fields = { capability, provider: choice.provider, model: choice.model };
    if (choice.usable)
      logger.info(fields, `${capability}: ${choice.provider} (${choice.model}) for the built-in preset`);
    else logger.warn({ ...fields, problem: choice.problem }, `${capability}: not available: ${choice.problem}`);
  }
  const problem = embeddingProblem(usability, embedding);
  const fields = { capability: 'embeddings', provider: embedding.provider, model: embedding.model };
  if (problem === null) logger.info(fields, `embeddings: ${embedding.provider} (${embedding.model}) for RAG`);
  else
    logger.warn(
      { ...fields, problem },
      `embeddings: not available (${problem}); RAG documents are searched by their words alone until it is`,
    );
}

/** Why the deployment's embedding model cannot run here, or null (its own key or URL counts). */
export function embeddingProblem(usability: Usability, embedding: Config['rag']['embedding']): string | null {
  if (embedding.provider === 'openai') {
    if (embedding.apiKey !== undefined || embedding.baseUrl !== undefined) return null;
    return 'openai: set OPENAI_API_KEY or OPENAI_BASE_URL (or PARLEY_EMBEDDING_API_KEY / PARLEY_EMBEDDING_BASE_URL)';
  }
  return usability.problem('embeddings', { provider: embedding.provider, model: embedding.model });
}
