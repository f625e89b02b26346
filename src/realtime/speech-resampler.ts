import { AudioFrame as RtcAudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import type { TtsChunk } from '../providers/tts.js';

/**
 * TTS chunks at the provider's rate in, PCM16 at the transport's rate out, pulled one chunk at a
 * time (the pull side of resampling; the push side for microphone audio is pipeline/resample.ts).
 * Chunks already at the target rate pass through as they are.
 */
export async function* resampleSpeech(chunks: AsyncIterable<TtsChunk>, rate: number): AsyncIterable<Int16Array> {
  let resampler: AudioResampler | undefined;
  let inputRate = 0;
  try {
    for await (const chunk of chunks) {
      if (chunk.samples.length === 0) continue;
      if (chunk.sampleRate === rate && resampler === undefined) {
        yield chunk.samples;
        continue;
      }
      if (resampler === undefined || chunk.sampleRate !== inputRate) {
        if (resampler !== undefined) yield* drain(resampler.flush());
        resampler?.close();
        inputRate = chunk.sampleRate;
        resampler = new AudioResampler(inputRate, rate, 1, AudioResamplerQuality.MEDIUM);
      }
      yield* drain(resampler.push(new RtcAudioFrame(chunk.samples, chunk.sampleRate, 1, chunk.samples.length)));
    }
    if (resampler !== undefined) yield* drain(resampler.flush());
  } finally {
    resampler?.close();
  }
}

function* drain(frames: RtcAudioFrame[]): Iterable<Int16Array> {
  for (const f of frames) if (f.samplesPerChannel > 0) yield f.data.subarray(0, f.samplesPerChannel);
}
