/**
 * bench/voice's speech providers for (c): the real recogniser (pocketsphinx) for agents whose
 * preset names it, the instant stand-ins for everything else (so (a) and (b), whose agents use the
 * stand-in preset of bench/lib/stand-in-preset.ts, are unchanged), TTS always instant. The recogniser is wrapped to count and time
 * what the sessions ask of it.
 */
import type { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import type { SpeechProviders } from '../../src/providers/speech-providers.js';
import type { StreamingSttProvider, SttRequest, SttStream, SttStreamRequest } from '../../src/providers/stt.js';

/** What the sessions asked of the recogniser since the last `take()`. */
export interface SttUse {
  /** Streams opened at an onset (a decoder was free). */
  streams: number;
  /** Onsets that found every decoder busy. */
  refused: number;
  /** Whole-utterance transcriptions: the fallback when a segment was not streamed. */
  whole: number;
  /** Segment end (`finish`) → final transcript, ms, per streamed segment. */
  finishMs: number[];
  /** Call → transcript, ms, per whole-utterance transcription (waiting for a decoder included). */
  wholeMs: number[];
}

const empty = (): SttUse => ({ streams: 0, refused: 0, whole: 0, finishMs: [], wholeMs: [] });

export class CountingStt implements StreamingSttProvider {
  readonly label: string;
  #use = empty();

  constructor(readonly inner: PocketsphinxStt) {
    this.label = inner.label;
  }

  take(): SttUse {
    const use = this.#use;
    this.#use = empty();
    return use;
  }

  openStream(request: SttStreamRequest): SttStream | null {
    const stream = this.inner.openStream(request);
    if (stream === null) {
      this.#use.refused++;
      return null;
    }
    this.#use.streams++;
    const use = () => this.#use;
    return {
      write: (samples) => stream.write(samples),
      get partial() {
        return stream.partial;
      },
      get healthy() {
        return stream.healthy;
      },
      finish: async () => {
        const t0 = performance.now();
        const text = await stream.finish();
        use().finishMs.push(performance.now() - t0);
        return text;
      },
      cancel: () => stream.cancel(),
    };
  }

  async transcribe(request: SttRequest): Promise<string> {
    this.#use.whole++;
    const t0 = performance.now();
    const text = await this.inner.transcribe(request);
    this.#use.wholeMs.push(performance.now() - t0);
    return text;
  }
}

export function withRealStt(instant: SpeechProviders, stt: CountingStt): SpeechProviders {
  return {
    stt: (settings) => (settings.provider === 'pocketsphinx' ? stt : instant.stt(settings)),
    tts: (settings) => instant.tts(settings),
  };
}
