import type { Config } from '../config/config.js';
import { DeepgramStt } from './deepgram/deepgram-stt.js';
import type { DeepgramOptions } from './deepgram/deepgram-options.js';
import type { StoredPreset } from '../schemas/preset.js';
import { ElevenLabsTts, type ElevenLabsTtsOptions } from './elevenlabs/elevenlabs-tts.js';
import { EspeakTts, type EspeakTtsOptions } from './espeak/espeak-tts.js';
import { FliteTts, type FliteTtsOptions } from './flite/flite-tts.js';
import type { LocalModelOptions } from './local/local-model-options.js';
import { LocalModel } from './local/local-model.js';
import { VitsTts } from './local/vits-tts.js';
import { WhisperStt, type WhisperSttOptions } from './local/whisper-stt.js';
import type { OpenAiEndpoint } from './openai/client.js';
import { PocketsphinxStt } from './pocketsphinx/pocketsphinx-stt.js';
import type { PocketsphinxOptions } from './pocketsphinx/sphinx-options.js';
import { OpenAiStt, type OpenAiSttOptions } from './openai/openai-stt.js';
import { OpenAiRealtimeStt, type OpenAiRealtimeSttOptions } from './openai-realtime/realtime-stt.js';
import { OpenAiTts, type OpenAiTtsOptions } from './openai/openai-tts.js';
import { ProviderError } from './provider-error.js';
import type { ProviderRegistry } from './registry.js';
import type { SttProvider } from './stt.js';
import type { TtsProvider } from './tts.js';

/** Provider instances for a preset's sections; instances are shared and cached per settings. */
export interface SpeechProviders {
  stt(settings: StoredPreset['stt']): SttProvider;
  tts(settings: StoredPreset['tts']): TtsProvider;
}

export interface ProviderSetOptions {
  /** Local (transformers.js) models: ONNX variant and threads per model worker. */
  local?: Partial<LocalModelOptions>;
  /** Local Whisper only (e.g. `maxNewTokens`). */
  whisper?: Partial<WhisperSttOptions>;
  /** espeak-ng words per minute at speed 1 and the like; `bin` comes from `PARLEY_ESPEAK_BIN`. */
  espeak?: Partial<Omit<EspeakTtsOptions, 'bin'>>;
  /** flite's working folder and chunk size; `bin` comes from `PARLEY_FLITE_BIN`. */
  flite?: Partial<Omit<FliteTtsOptions, 'bin'>>;
  openaiStt?: Partial<OpenAiSttOptions>;
  /** `openai-realtime` beyond PARLEY_PROVIDER_STALL_MS / PARLEY_STT_TIMEOUT_MS (the lag bound). */
  openaiRealtime?: Partial<OpenAiRealtimeSttOptions>;
  /** Deepgram beyond `PARLEY_DEEPGRAM_*` and the stall limit (the chunking of whole utterances). */
  deepgram?: Partial<DeepgramOptions>;
  /** pocketsphinx beyond its `PARLEY_POCKETSPHINX_*` settings (bestpath, lag bound). */
  pocketsphinx?: Partial<PocketsphinxOptions>;
  openaiTts?: Partial<OpenAiTtsOptions>;
  elevenlabs?: Partial<ElevenLabsTtsOptions>;
}

/**
 * The real resolver: a preset section's provider name picks the implementation, and one instance
 * per provider and model is created on first use and shared by every session. Local models are
 * found in the registry's folder for the model id (`MODELS_DIR`, with its aliases) and load
 * lazily on the first request, once per process.
 */
export class ProviderSet implements SpeechProviders {
  private readonly sttCache = new Map<string, SttProvider>();
  private readonly ttsCache = new Map<string, TtsProvider>();
  private readonly endpoint: OpenAiEndpoint;

  constructor(
    private readonly config: Config,
    private readonly registry: ProviderRegistry,
    private readonly options: ProviderSetOptions = {},
  ) {
    this.endpoint = { apiKey: config.openai.apiKey, baseUrl: config.openai.baseUrl };
  }

  stt(settings: StoredPreset['stt']): SttProvider {
    return cached(this.sttCache, settings.provider, settings.model, () => {
      switch (settings.provider) {
        case 'openai':
          return new OpenAiStt(this.endpoint, this.options.openaiStt);
        case 'openai-realtime': {
          const { stallMs, sttTimeoutMs } = this.config.speechLimits;
          const limits = { connectTimeoutMs: stallMs, stallMs, timeoutMs: sttTimeoutMs };
          return new OpenAiRealtimeStt(this.config.openaiRealtime, { ...limits, ...this.options.openaiRealtime });
        }
        case 'deepgram':
          return new DeepgramStt({
            ...this.config.deepgram,
            stallMs: this.config.speechLimits.stallMs,
            ...this.options.deepgram,
          });
        case 'pocketsphinx':
          return new PocketsphinxStt({ ...this.config.pocketsphinx, ...this.options.pocketsphinx });
        case 'local-whisper':
          return new WhisperStt(this.registry.modelDir(settings.model), {
            ...this.options.local,
            ...this.options.whisper,
          });
        default:
          throw new ProviderError(settings.provider, 'is not a speech-to-text provider');
      }
    });
  }

  tts(settings: StoredPreset['tts']): TtsProvider {
    return cached(this.ttsCache, settings.provider, settings.model, () => {
      switch (settings.provider) {
        case 'espeak':
          return new EspeakTts({ ...this.options.espeak, bin: this.config.espeakBin });
        case 'flite':
          return new FliteTts({ ...this.options.flite, bin: this.config.fliteBin });
        case 'openai':
          return new OpenAiTts(this.endpoint, this.options.openaiTts);
        case 'local-vits':
          return new VitsTts(this.registry.modelDir(settings.model), this.options.local);
        case 'elevenlabs':
          return new ElevenLabsTts(this.config.elevenlabs, this.options.elevenlabs);
        default:
          throw new ProviderError(settings.provider, 'is not a text-to-speech provider');
      }
    });
  }

  /** Stops the local model workers (shutdown). */
  async close(): Promise<void> {
    await Promise.all(
      [...this.sttCache.values()].map((stt) => (stt instanceof PocketsphinxStt ? stt.close() : undefined)),
    );
    await LocalModel.closeAll();
  }
}

function cached<T>(cache: Map<string, T>, provider: string, model: string, create: () => T): T {
  const key = `${provider}\u0000${model}`;
  let instance = cache.get(key);
  if (instance === undefined) {
    instance = create();
    cache.set(key, instance);
  }
  return instance;
}
