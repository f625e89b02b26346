/**
 * Smart Turn v3's input, as its reference inference prepares it (pipecat-ai/smart-turn
 * `inference.py`): the utterance's last 8 s of 16 kHz audio, zero-padded at the *start* when
 * shorter; the waveform normalised to zero mean and unit variance over the whole 8 s window
 * (padding included: `WhisperFeatureExtractor(do_normalize=True)` on the padded array); then
 * Whisper's log-mel features, 80 mels × 800 frames.
 */
import { LogMelExtractor } from './log-mel.js';

export const smartTurnSampleRate = 16_000;
export const smartTurnWindowSamples = 8 * smartTurnSampleRate;
export const smartTurnMels = 80;
export const smartTurnFrames = smartTurnWindowSamples / 160;
const varianceEpsilon = 1e-7;

export class SmartTurnFeatures {
  readonly #mel = new LogMelExtractor();
  readonly #window = new Float32Array(smartTurnWindowSamples);

  /** Features of the end of `audio` (16 kHz PCM16), into `out` (80 × 800, mel-major) or a new array. */
  compute(audio: Int16Array, out?: Float32Array): Float32Array {
    const window = this.#window;
    const take = Math.min(audio.length, smartTurnWindowSamples);
    const pad = smartTurnWindowSamples - take;
    window.fill(0, 0, pad);
    const tail = audio.subarray(audio.length - take);
    for (let i = 0; i < take; i++) window[pad + i] = tail[i]! / 32768;
    let sum = 0;
    for (let i = 0; i < window.length; i++) sum += window[i]!;
    const mean = sum / window.length;
    let squares = 0;
    for (let i = 0; i < window.length; i++) squares += (window[i]! - mean) ** 2;
    const scale = 1 / Math.sqrt(squares / window.length + varianceEpsilon);
    for (let i = 0; i < window.length; i++) window[i] = (window[i]! - mean) * scale;
    return this.#mel.compute(window, out);
  }
}
