import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import {
  getLlama,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatWrapper,
  type GbnfJsonSchema,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import { ProviderError, ProviderNotConfigured } from '../provider-error.js';
import { toGrammarSchema } from './json-schema-grammar.js';
import { SequencePool } from './sequence-pool.js';

export const providerName = 'local-llama';

export interface LlamaModelOptions {
  /** Requests generating at once on one model (context sequences, evaluated in shared batches); more wait in order. */
  sequences: number;
  /** Tokens each sequence holds: the prompt (system prompt, tools, history) plus the answer. */
  contextSize: number;
  /**
   * CPU threads llama.cpp computes with (per runtime, shared by its models). More threads than free
   * cores make it far slower, not faster: its threads spin while they wait (measured on 2 cores: a
   * tiny model at 0.5 ms a token with 1 thread, 17 ms with 2, 400 ms with 4).
   */
  threads: number;
  /** `auto`: CUDA, Vulkan or Metal when node-llama-cpp finds a usable one, else the CPU; `false`: the CPU only. */
  gpu: 'auto' | false;
  /** Where llama.cpp's warnings and errors go (read when the first model of the process loads). */
  log?: ((level: 'warn' | 'error', message: string) => void) | undefined;
  /** Told once per model file when it has loaded: where it runs (`gpu`: `cuda`, `vulkan`, `metal`, false for the CPU). */
  onLoad?: ((loaded: LoadedModel) => void) | undefined;
}

/** Where a loaded model runs: the runtime's GPU type (false: the CPU) and how many of its layers are on the GPU. */
export interface LoadedModel {
  path: string;
  gpu: string | false;
  gpuLayers: number;
}

export const defaultLlamaModelOptions: LlamaModelOptions = {
  sequences: 4,
  contextSize: 4096,
  /** Half the cores: the rest stay with the event loop, VAD and the other model workers. */
  threads: Math.max(1, Math.floor(availableParallelism() / 2)),
  gpu: 'auto',
};

/** One llama.cpp runtime per GPU and thread setting per process; a failed start is tried again by the next load. */
const runtimes = new Map<string, Promise<Llama>>();

function runtime(options: LlamaModelOptions): Promise<Llama> {
  const key = `${String(options.gpu)}\u0000${options.threads}`;
  let llama = runtimes.get(key);
  if (llama === undefined) {
    llama = getLlama({
      gpu: options.gpu,
      // Prebuilt binaries only: never compile llama.cpp or download its sources at run time.
      build: 'never',
      progressLogs: false,
      maxThreads: options.threads,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => {
        if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) options.log?.('error', message);
        else if (level === LlamaLogLevel.warn) options.log?.('warn', message);
      },
    });
    runtimes.set(key, llama);
    llama.catch(() => runtimes.delete(key)); // the caller gets the rejection; this only forgets the failed runtime
  }
  return llama;
}

/**
 * One GGUF model per file per process, shared by every session: loaded lazily by the first request
 * (a failed load is tried again by the next), with one context of `sequences` sequences lent to
 * requests through a bounded pool, and its chat wrapper resolved once from the file's metadata
 * (the Jinja template comparison is not repeated per request). llama.cpp runs on its own threads;
 * loading, prompt evaluation and generation are asynchronous, so the event loop keeps running.
 */
export class SharedLlamaModel {
  private static readonly loaded = new Map<string, Promise<SharedLlamaModel>>();

  static load(modelPath: string, options: LlamaModelOptions): Promise<SharedLlamaModel> {
    const key = [modelPath, options.sequences, options.contextSize, options.threads, options.gpu].join('\u0000');
    const cached = SharedLlamaModel.loaded.get(key);
    if (cached !== undefined) return cached;
    const loading = SharedLlamaModel.open(modelPath, options);
    SharedLlamaModel.loaded.set(key, loading);
    // The caller gets the rejection; this only forgets the failed load, so the next call tries again.
    loading.catch(() => {
      if (SharedLlamaModel.loaded.get(key) === loading) SharedLlamaModel.loaded.delete(key);
    });
    return loading;
  }

  /** Frees every loaded model and the runtimes (shutdown, tests); requests still waiting fail. */
  static async closeAll(): Promise<void> {
    const models = await Promise.allSettled([...SharedLlamaModel.loaded.values()]);
    SharedLlamaModel.loaded.clear();
    await Promise.all(models.map((m) => (m.status === 'fulfilled' ? m.value.close() : undefined)));
    const llamas = await Promise.allSettled([...runtimes.values()]);
    runtimes.clear();
    await Promise.all(llamas.map((l) => (l.status === 'fulfilled' ? l.value.dispose() : undefined)));
  }

  private static async open(modelPath: string, options: LlamaModelOptions): Promise<SharedLlamaModel> {
    // a path that cannot be read is reported below as no model there, with the path
    const file = await stat(modelPath).catch(() => null);
    if (file === null || !file.isFile()) {
      throw new ProviderNotConfigured(
        providerName,
        `model not installed: ${modelPath} is missing (run \`npm run models\`, or point MODELS_DIR at the models)`,
      );
    }
    let model: LlamaModel | undefined;
    try {
      const llama = await runtime(options);
      model = await llama.loadModel({ modelPath });
      const context = await model.createContext({
        sequences: options.sequences,
        contextSize: options.contextSize,
        threads: options.threads,
      });
      const sequences = Array.from({ length: options.sequences }, () => context.getSequence());
      options.onLoad?.({ path: modelPath, gpu: llama.gpu, gpuLayers: model.gpuLayers });
      return new SharedLlamaModel(modelPath, llama, model, context, resolveChatWrapper(model), sequences);
    } catch (err) {
      await model?.dispose().catch(() => undefined); // freeing a half-loaded model: the load's error is what is reported
      const why = err instanceof Error ? err.message : String(err);
      throw new ProviderError(providerName, `model ${modelPath} did not load: ${why}`, { cause: err });
    }
  }

  readonly pool: SequencePool<LlamaContextSequence>;

  private constructor(
    readonly path: string,
    private readonly llama: Llama,
    readonly model: LlamaModel,
    private readonly context: LlamaContext,
    /** How the model's prompts and function calls are written (e.g. `Qwen` for Qwen2.5). */
    readonly chatWrapper: ChatWrapper,
    sequences: LlamaContextSequence[],
  ) {
    this.pool = new SequencePool(sequences);
  }

  /**
   * A grammar that holds the model's answer to one JSON value of `schema` (draft-07, through
   * toGrammarSchema: what a grammar cannot express is left unconstrained, and every listed property
   * is written). A schema llama.cpp cannot compile is a ProviderError.
   */
  async jsonGrammar(schema: Record<string, unknown>): Promise<LlamaGrammar> {
    try {
      return await this.llama.createGrammarForJsonSchema<GbnfJsonSchema>(toGrammarSchema(schema));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ProviderError(providerName, `no grammar for the answer's JSON schema: ${why}`, { cause: err });
    }
  }

  /** The compute the runtime uses: `cuda`, `vulkan`, `metal`, or false for the CPU. */
  get gpu(): string | false {
    return this.llama.gpu;
  }

  private async close(): Promise<void> {
    this.pool.close(new ProviderError(providerName, 'the model was closed (shutdown)'));
    await this.context.dispose();
    await this.model.dispose();
  }
}
