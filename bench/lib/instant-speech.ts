import type { SpeechProviders } from '../../src/providers/speech-providers.js';
import type { SttProvider } from '../../src/providers/stt.js';
import type { TtsChunk, TtsProvider } from '../../src/providers/tts.js';

/** What the instant STT provider hears in every utterance. */
export const instantTranscript = 'What time do you open tomorrow?';

/**
 * Speech providers that cost nothing, for measuring what Parley itself adds to a turn: STT answers
 * a fixed transcript at once, TTS yields one 20 ms chunk of (near-silent) PCM at once, at the rate
 * the client asked for so that no resampler is involved.
 */
export function instantSpeech(sampleRate = 16_000): SpeechProviders {
  const samples = new Int16Array((sampleRate * 20) / 1000);
  for (let i = 0; i < samples.length; i++) samples[i] = i % 2 === 0 ? 8 : -8;
  const chunk: TtsChunk = { samples, sampleRate };
  const stt: SttProvider = { label: 'instant', transcribe: () => Promise.resolve(instantTranscript) };
  const tts: TtsProvider = {
    label: 'instant',
    async *synthesize() {
      yield chunk;
    },
  };
  return { stt: () => stt, tts: () => tts };
}
