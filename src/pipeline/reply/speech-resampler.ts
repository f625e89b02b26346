import { Resampler } from '../../audio/resampler.js';
import type { TtsChunk, TtsStreamChunk } from '../../providers/tts.js';
import type { SpeechChunk } from './playout.js';

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

/**
 * A text stream's speech (TTS chunks with their segment) at the transport's rate, each chunk with
 * the sentence it speaks (a segment is a sentence: the reply flushes the stream at each one).
 */
export async function* resampleSegments(
  chunks: AsyncIterable<TtsStreamChunk>,
  rate: number,
): AsyncIterable<SpeechChunk> {
  let resampler: Resampler | undefined;
  let sentence = 0;
  for await (const chunk of chunks) {
    sentence = chunk.segment;
    if (chunk.samples.length === 0) continue;
    if (chunk.sampleRate === rate && resampler === undefined) {
      yield { sentence, samples: chunk.samples };
      continue;
    }
    if (resampler === undefined || resampler.inputRate !== chunk.sampleRate) {
      if (resampler !== undefined) yield { sentence, samples: resampler.flush() };
      resampler = new Resampler(chunk.sampleRate, rate);
    }
    const out = resampler.push(chunk.samples);
    if (out.length > 0) yield { sentence, samples: out };
  }
  if (resampler !== undefined) {
    const tail = resampler.flush();
    if (tail.length > 0) yield { sentence, samples: tail };
  }
}
