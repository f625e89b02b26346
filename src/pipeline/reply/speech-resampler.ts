import { Resampler } from '../../audio/resampler.js';
import type { TtsChunk } from '../../providers/tts.js';

/**
 * TTS chunks at the provider's rate in, PCM16 at the transport's rate out, pulled one chunk at a
 * time (the pull side of resampling; microphone audio goes through ../resample.ts).
 * Chunks already at the target rate pass through as they are.
 */
export async function* resampleSpeech(chunks: AsyncIterable<TtsChunk>, rate: number): AsyncIterable<Int16Array> {
  let resampler: Resampler | undefined;
  for await (const chunk of chunks) {
    if (chunk.samples.length === 0) continue;
    if (chunk.sampleRate === rate && resampler === undefined) {
      yield chunk.samples;
      continue;
    }
    if (resampler === undefined || resampler.inputRate !== chunk.sampleRate) {
      if (resampler !== undefined) yield resampler.flush();
      resampler = new Resampler(chunk.sampleRate, rate);
    }
    const out = resampler.push(chunk.samples);
    if (out.length > 0) yield out;
  }
  if (resampler !== undefined) {
    const tail = resampler.flush();
    if (tail.length > 0) yield tail;
  }
}
