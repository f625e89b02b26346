import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { resample } from './pcm.js';

/**
 * 16 kHz speech as a phone call brings it to the recogniser: down to 8 kHz μ-law (the fake
 * carrier's phone), then decoded and up to 16 kHz again (the Twilio transport and the session's
 * microphone graph).
 */
export function overPhoneLine(samples16k: Int16Array): Int16Array {
  return resample(mulawDecode(mulawEncode(resample(samples16k, 16_000, 8_000))), 8_000, 16_000);
}
