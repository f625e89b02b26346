import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import { findProvider } from '../../schemas/provider-catalog.js';
import type { ProviderAvailability } from '../status/availability.js';
import { builtInCapabilities, builtInOrder, type BuiltInCapability, type BuiltInPreset } from './built-in-preset.js';
import type { Usability } from './usability.js';

/** What cannot work while a capability has no usable provider. */
const consequence: Record<BuiltInCapability | 'embeddings', string> = {
  stt: 'voice sessions cannot hear',
  llm: 'enhanced mode cannot answer',
  tts: 'voice sessions cannot speak',
  embeddings: 'RAG searches documents by their words only',
};

/** The Debian packages of the providers that are programs or libraries. */
const debianPackages: Readonly<Record<string, string>> = {
  pocketsphinx: 'libpocketsphinx3 pocketsphinx-en-us',
  flite: 'flite',
  espeak: 'espeak-ng',
};

const remoteFix = 'set OPENAI_API_KEY or OPENAI_BASE_URL';

/**
 * Start-up says, one short line per capability, what the built-in preset uses here, or (at warn)
 * that nothing is usable, what that stops and how to fix it: the fixes of the first two providers
 * in the built-in order. A line never names a provider or model that cannot run; each one's
 * reason is at debug level and in GET /admin/v1/presets/built-in. Embeddings are the
 * deployment's (PARLEY_EMBEDDING_*). openParley logs this once per server.
 */
export function logCapabilities(
  logger: Logger,
  builtIn: BuiltInPreset,
  usability: Usability,
  embedding: Config['rag']['embedding'],
): void {
  for (const capability of builtInCapabilities) {
    const choice = builtIn.choices[capability];
    if (choice.usable) {
      logger.info(
        { capability, provider: choice.provider, model: choice.model },
        `${capability}: ${choice.provider} (${choice.model}) for the built-in preset`,
      );
      continue;
    }
    const entries = builtInOrder[capability].flatMap((p) => usability.of(capability, p) ?? []);
    const fixes = [...new Set(entries.map(fixOf))].slice(0, 2);
    logger.warn(
      { capability },
      `${capability}: nothing usable (${consequence[capability]}); fix: ${fixes.join(', or ')}`,
    );
    logger.debug({ capability, problem: choice.problem }, `${capability}: why no provider is usable`);
  }
  const problem = embeddingProblem(usability, embedding);
  if (problem === null) {
    logger.info(
      { capability: 'embeddings', provider: embedding.provider, model: embedding.model },
      `embeddings: ${embedding.provider} (${embedding.model}) for RAG`,
    );
    return;
  }
  logger.warn(
    { capability: 'embeddings' },
    `embeddings: not usable (${consequence.embeddings}); fix: ${embeddingFix(embedding)}`,
  );
  logger.debug({ capability: 'embeddings', problem }, 'embeddings: why the model is not usable');
}

/** The one step that makes a provider usable here. */
function fixOf(entry: ProviderAvailability): string {
  const debian = debianPackages[entry.provider];
  if (debian !== undefined) return `apt-get install ${debian}`;
  return entry.kind === 'remote' ? remoteFix : 'npm run models';
}

/** `npm run models` downloads the catalog's embedding model; another id is the operator's to place. */
function embeddingFix(embedding: Config['rag']['embedding']): string {
  if (embedding.provider === 'openai') return remoteFix;
  const known = findProvider('embeddings', embedding.provider)?.models.includes(embedding.model) === true;
  return known ? 'npm run models' : `put ${embedding.model} in MODELS_DIR`;
}

/** Why the deployment's embedding model cannot run here, or null (its own key or URL counts). */
export function embeddingProblem(usability: Usability, embedding: Config['rag']['embedding']): string | null {
  if (embedding.provider === 'openai') {
    if (embedding.apiKey !== undefined || embedding.baseUrl !== undefined) return null;
    return 'openai: set OPENAI_API_KEY or OPENAI_BASE_URL (or PARLEY_EMBEDDING_API_KEY / PARLEY_EMBEDDING_BASE_URL)';
  }
  return usability.problem('embeddings', { provider: embedding.provider, model: embedding.model });
}
