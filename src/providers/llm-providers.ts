import { basename } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { StoredPreset } from '../schemas/preset.js';
import { LlamaLlm, type LlamaModelOptions } from './llama/llama-llm.js';
import { SharedLlamaModel, type LoadedModel } from './llama/shared-llama-model.js';
import type { LlmProvider } from './llm.js';
import { OpenAiLlm } from './openai/openai-llm.js';
import { ProviderError } from './provider-error.js';
import type { ProviderRegistry } from './registry.js';

/** Where a local model's file is, and whether it must not be loaded (the registry's model snapshot). */
export type ModelFiles = Pick<ProviderRegistry, 'modelFile' | 'modelProblem'>;

/**
 * The language model for a preset's `llm` section, by its provider: `openai` (one client for every
 * preset: the model is named per request) or `local-llama` (one LlamaLlm per GGUF model: the
 * catalog model's file in its folder, or a .gguf file under MODELS_DIR named by its relative path;
 * the model itself loads once per process, on the first request, and only while the model
 * snapshot says the file is installed). An unknown provider or model fails the request with a
 * ProviderError.
 */
export class LlmProviders {
  private readonly openai: OpenAiLlm;
  private readonly llamas = new Map<string, LlamaLlm>();

  constructor(
    config: Pick<Config, 'openai' | 'llama'>,
    private readonly files: ModelFiles,
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
          const { model } = settings;
          const file = this.files.modelFile('llm', 'local-llama', model);
          if (file === undefined) throw new ProviderError('local-llama', `unknown model ${model}`);
          llm = new LlamaLlm(file, this.llama, () => this.files.modelProblem('llm', 'local-llama', model));
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

/** The line that says where a local-llama model runs, the operator's check of GPU use. */
export function loadedModelLine({ path, gpu, gpuLayers }: LoadedModel): string {
  const where = gpu === false ? 'the CPU' : `the GPU (${gpu}, ${gpuLayers} layers offloaded)`;
  return `local-llama: ${basename(path)} loaded on ${where}`;
}

/**
 * The process's LLM providers, llama.cpp's warnings and errors going to `logger`, and one `info`
 * line per loaded GGUF model saying where it runs (fields `gpu`, `gpuLayers`).
 */
export function llmProviders(config: Pick<Config, 'openai' | 'llama'>, files: ModelFiles, logger: Logger) {
  return new LlmProviders(config, files, {
    ...config.llama,
    log: (level, message) => logger[level]({ provider: 'local-llama' }, message.trim()),
    onLoad: (loaded) => logger.info({ provider: 'local-llama', ...loaded }, loadedModelLine(loaded)),
  });
}
