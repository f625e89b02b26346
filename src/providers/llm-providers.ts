import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { StoredPreset } from '../records/preset.js';
import { findProvider } from '../records/provider-catalog.js';
import { LlamaLlm, type LlamaModelOptions } from './llama/llama-llm.js';
import { SharedLlamaModel } from './llama/shared-llama-model.js';
import type { LlmProvider } from './llm.js';
import { OpenAiLlm } from './openai/openai-llm.js';
import { ProviderError } from './provider-error.js';

/**
 * The language model for a preset's `llm` section, by its provider: `openai` (one client for every
 * preset: the model is named per request) or `local-llama` (one LlamaLlm per GGUF model, whose file
 * is `<model folder>/<the catalog's file name>`; the model itself loads once per process, on the
 * first request). An unknown provider or model fails the request with a ProviderError.
 */
export class LlmProviders {
  private readonly openai: OpenAiLlm;
  private readonly llamas = new Map<string, LlamaLlm>();

  constructor(
    config: Pick<Config, 'openai' | 'llama'>,
    /** The folder of a local model id (the registry's, with its aliases). */
    private readonly modelDir: (modelId: string) => string,
    private readonly llama: Partial<LlamaModelOptions> = config.llama,
  ) {
    this.openai = new OpenAiLlm({ apiKey: config.openai.apiKey, baseUrl: config.openai.baseUrl });
  }

  llm(settings: StoredPreset['llm']): LlmProvider {
    switch (settings.provider) {
      case 'openai':
        return this.openai;
      case 'local-llama': {
        let llm = this.llamas.get(settings.model);
        if (llm === undefined) {
          const file = findProvider('llm', 'local-llama')?.modelFiles?.[settings.model];
          if (file === undefined) throw new ProviderError('local-llama', `unknown model ${settings.model}`);
          llm = new LlamaLlm(join(this.modelDir(settings.model), file), this.llama);
          this.llamas.set(settings.model, llm);
        }
        return llm;
      }
      default:
        throw new ProviderError(settings.provider, 'is not a language-model provider');
    }
  }

  /** Frees the loaded GGUF models (shutdown). */
  async close(): Promise<void> {
    await SharedLlamaModel.closeAll();
  }
}

/** The process's LLM providers, llama.cpp's warnings and errors going to `logger`. */
export function llmProviders(
  config: Pick<Config, 'openai' | 'llama'>,
  modelDir: (id: string) => string,
  logger: Logger,
) {
  return new LlmProviders(config, modelDir, {
    ...config.llama,
    log: (level, message) => logger[level]({ provider: 'local-llama' }, message.trim()),
  });
}
