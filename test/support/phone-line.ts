import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { Resampler } from '../../src/audio/resampler.js';

/** A whole clip from one rate to another (Parley's resampler, flushed). */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  const resampler = new Resampler(from, to);
  const head = resampler.push(samples);
  const tail = resampler.flush();
  const out = new Int16Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/**
 * 16 kHz speech as a phone call brings it to the recogniser: down to 8 kHz μ-law (the fake
 * carrier's phone), then decoded and up to 16 kHz again (the Twilio transport and the session's
 * microphone graph).
 */
export function overPhoneLine(samples16k: Int16Array): Int16Array {
  return resample(mulawDecode(mulawEncode(resample(samples16k, 16_000, 8_000))), 8_000, 16_000);
}
