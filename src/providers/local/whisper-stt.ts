import { int16ToFloat32Into } from '../../audio/audio-frame.js';
import { ProviderError } from '../provider-error.js';
import type { SttProvider, SttRequest } from '../stt.js';
import { LocalModel } from './local-model.js';
import { defaultLocalModelOptions, type LocalModelOptions } from './local-model-options.js';

const whisperRate = 16_000;

export interface WhisperSttOptions extends LocalModelOptions {
  /** Most tokens decoded per 30 s window; null: the model's own limit (448 for Whisper). */
  maxNewTokens: number | null;
}

export const defaultWhisperSttOptions: WhisperSttOptions = {
  ...defaultLocalModelOptions,
  maxNewTokens: null,
};

/**
 * Whisper in-process (transformers.js, ONNX Runtime) on a worker thread: one model per folder per
 * process, shared by every session, loaded from disk only (`npm run models` fetches it). English-only
 * models (`*.en`) ignore the language hint; multilingual ones use it, or assume English without one.
 */
export class WhisperStt implements SttProvider {
  readonly label = 'local-whisper';
  private readonly options: WhisperSttOptions;

  /** `modelDir`: the model's folder (see ProviderRegistry.modelDir). Loads on first use. */
  constructor(
    readonly modelDir: string,
    options: Partial<WhisperSttOptions> = {},
  ) {
    this.options = { ...defaultWhisperSttOptions, ...options };
  }

  /** A provider whose model is loaded already. */
  static async load(modelDir: string, options: Partial<WhisperSttOptions> = {}): Promise<WhisperStt> {
    const stt = new WhisperStt(modelDir, options);
    await stt.model();
    return stt;
  }

  /** The shared loaded model. */
  model(): Promise<LocalModel> {
    const { dtype, threads } = this.options;
    return LocalModel.load(
      { task: 'automatic-speech-recognition', modelDir: this.modelDir, dtype, threads },
      this.label,
    );
  }

  async transcribe(request: SttRequest): Promise<string> {
    request.signal?.throwIfAborted();
    if (request.sampleRate !== whisperRate) {
      throw new ProviderError(this.label, `audio must be ${whisperRate} Hz mono, got ${request.sampleRate} Hz`);
    }
    if (request.audio.length === 0) return '';
    const audio = new Float32Array(request.audio.length);
    int16ToFloat32Into(request.audio, audio);
    const model = await this.model();
    const res = await model.call(
      'transcribe',
      { audio, language: request.language, maxNewTokens: this.options.maxNewTokens },
      { signal: request.signal, transfer: [audio.buffer] },
    );
    return res.text;
  }
}
