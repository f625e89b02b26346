import { float32ToInt16 } from '../../audio/audio-frame.js';
import type { TtsChunk, TtsProvider, TtsRequest } from '../tts.js';
import { LocalModel } from './local-model.js';
import { defaultLocalModelOptions, type LocalModelOptions } from './local-model-options.js';

/**
 * VITS / MMS-TTS in-process (transformers.js, ONNX Runtime) on a worker thread: one model per
 * folder per process. Each request yields one chunk at the model's own sample rate (16 kHz for
 * MMS); the pipeline already sends one sentence at a time. VITS has one voice and no speed control:
 * `voice` and `speed` are ignored.
 */
export class VitsTts implements TtsProvider {
  readonly label = 'local-vits';
  private readonly options: LocalModelOptions;

  /** `modelDir`: the model's folder (see ProviderRegistry.modelDir). Loads on first use. */
  constructor(
    readonly modelDir: string,
    options: Partial<LocalModelOptions> = {},
  ) {
    this.options = { ...defaultLocalModelOptions, ...options };
  }

  /** A provider whose model is loaded already. */
  static async load(modelDir: string, options: Partial<LocalModelOptions> = {}): Promise<VitsTts> {
    const tts = new VitsTts(modelDir, options);
    await tts.model();
    return tts;
  }

  /** The shared loaded model. */
  model(): Promise<LocalModel> {
    const { dtype, threads } = this.options;
    return LocalModel.load({ task: 'text-to-speech', modelDir: this.modelDir, dtype, threads }, this.label);
  }

  async *synthesize(request: TtsRequest): AsyncIterable<TtsChunk> {
    const { signal } = request;
    if (signal?.aborted || request.text.trim() === '') return;
    const model = await this.model();
    let res;
    try {
      res = await model.call('synthesize', { text: request.text }, { signal });
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (signal?.aborted || res.audio.length === 0) return;
    yield { samples: float32ToInt16(res.audio), sampleRate: res.sampleRate };
  }
}
