import type { TtsProvider } from '../providers/tts.js';

/** The rate the simulated caller speaks and listens at: the pipeline's own, so nothing is resampled. */
export const callerSampleRate = 16_000;

/** How the caller's lines are spoken: flite's default voice `slt` speaks at 16 kHz. */
export interface CallerVoice {
  tts: TtsProvider;
  model: string;
  voice: string;
}

const loud = (s: number) => Math.abs(s) > 32; // about -60 dBFS

/**
 * One caller line as 16 kHz PCM16, synthesized by Parley's own TTS provider (flite), with the
 * engine's leading and trailing silence trimmed so that "end of speech" is the last spoken sample.
 */
export async function speakLine(voice: CallerVoice, text: string, signal?: AbortSignal): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  let length = 0;
  for await (const chunk of voice.tts.synthesize({ text, model: voice.model, voice: voice.voice, speed: 1, signal })) {
    if (chunk.sampleRate !== callerSampleRate)
      throw new Error(
        `the caller's voice ${voice.tts.label}/${voice.voice} speaks at ${chunk.sampleRate} Hz, not ${callerSampleRate}`,
      );
    chunks.push(chunk.samples);
    length += chunk.samples.length;
  }
  const all = new Int16Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  const first = all.findIndex(loud);
  if (first < 0) throw new Error(`the caller's voice said nothing for "${text}"`);
  return all.subarray(first, all.findLastIndex(loud) + 1);
}
