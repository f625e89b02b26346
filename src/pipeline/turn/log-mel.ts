/**
 * Whisper's log-mel spectrogram (the features of OpenAI's `log_mel_spectrogram` and of Hugging
 * Face's `WhisperFeatureExtractor`): 16 kHz audio, centred frames (reflect padding) of n_fft 400
 * samples every 160 (10 ms) under a periodic Hann window, power spectrum, 80 Slaney-normalised mel
 * filters (Slaney scale, 0–8 kHz), log10 of max(1e-10, ·), floored at the maximum − 8, then
 * (x + 4) / 4. The last frame of the centred STFT is dropped, so N samples give N / hop frames.
 *
 * The transform and spectrum buffers are allocated once per extractor; one extractor serves one
 * caller at a time.
 */
import { Fft } from './fft.js';

export interface LogMelOptions {
  sampleRate: number;
  nFft: number;
  hopLength: number;
  nMels: number;
}

export const whisperLogMelOptions: LogMelOptions = { sampleRate: 16_000, nFft: 400, hopLength: 160, nMels: 80 };

const melFloor = 1e-10;

/** One mel filter: the weights of the frequency bins [start, start + weights.length). */
interface MelFilter {
  start: number;
  weights: Float64Array;
}

export class LogMelExtractor {
  readonly options: LogMelOptions;
  readonly #fft: Fft;
  readonly #window: Float64Array;
  readonly #filters: MelFilter[];
  readonly #re: Float64Array;
  readonly #im: Float64Array;
  readonly #power: Float64Array;
  readonly #powerB: Float64Array;

  constructor(options: Partial<LogMelOptions> = {}) {
    this.options = { ...whisperLogMelOptions, ...options };
    const { nFft, nMels, sampleRate } = this.options;
    this.#fft = new Fft(nFft);
    this.#window = new Float64Array(nFft);
    for (let i = 0; i < nFft; i++) this.#window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / nFft);
    this.#filters = slaneyMelFilters(nFft / 2 + 1, nMels, 0, sampleRate / 2, sampleRate);
    this.#re = new Float64Array(nFft);
    this.#im = new Float64Array(nFft);
    this.#power = new Float64Array(nFft / 2 + 1);
    this.#powerB = new Float64Array(nFft / 2 + 1);
  }

  /** Frames produced for `samples` samples of audio. */
  frames(samples: number): number {
    return Math.floor(samples / this.options.hopLength);
  }

  /**
   * Features of `audio` (float samples at the options' rate), mel-major: `out[mel * frames + t]`.
   * `out` is reused when given (length nMels × frames).
   */
  compute(audio: Float32Array, out?: Float32Array): Float32Array {
    const { nFft, hopLength, nMels } = this.options;
    const frames = this.frames(audio.length);
    if (audio.length <= nFft / 2) throw new Error(`log-mel needs more than ${nFft / 2} samples, got ${audio.length}`);
    const result = out ?? new Float32Array(nMels * frames);
    if (result.length !== nMels * frames) throw new Error(`output holds ${result.length}, needs ${nMels * frames}`);
    // Frames of constant input (Smart Turn's zero padding, normalised) all have the same spectrum:
    // the first is computed, the others copy it. The rest go two per complex transform.
    const todo: number[] = [];
    const copyOf = new Int32Array(frames).fill(-1);
    let constantFrame = -1;
    let constantValue = Number.NaN;
    for (let t = 0; t < frames; t++) {
      const v = this.#constantValue(audio, t);
      if (!Number.isNaN(v) && v === constantValue) copyOf[t] = constantFrame;
      else {
        todo.push(t);
        if (!Number.isNaN(v)) [constantFrame, constantValue] = [t, v];
      }
    }
    let max = -Infinity;
    for (let i = 0; i < todo.length; i += 2) {
      const t = todo[i]!;
      const u = todo[i + 1];
      for (let j = 0; j < nFft; j++) {
        const w = this.#window[j]!;
        this.#re[j] = w * centred(audio, t * hopLength + j - nFft / 2);
        this.#im[j] = u === undefined ? 0 : w * centred(audio, u * hopLength + j - nFft / 2);
      }
      this.#fft.transform(this.#re, this.#im);
      this.#splitPower(u !== undefined);
      max = Math.max(max, this.#melInto(this.#power, result, t, frames));
      if (u !== undefined) max = Math.max(max, this.#melInto(this.#powerB, result, u, frames));
    }
    for (let t = 0; t < frames; t++) {
      const from = copyOf[t]!;
      if (from === -1) continue;
      for (let m = 0; m < nMels; m++) result[m * frames + t] = result[m * frames + from]!;
    }
    const floor = max - 8;
    for (let i = 0; i < result.length; i++) result[i] = (Math.max(result[i]!, floor) + 4) / 4;
    return result;
  }

  /** The value every sample of frame `t` has, or NaN when they differ. */
  #constantValue(audio: Float32Array, t: number): number {
    const { nFft, hopLength } = this.options;
    const first = centred(audio, t * hopLength - nFft / 2);
    for (let j = 1; j < nFft; j++) if (centred(audio, t * hopLength + j - nFft / 2) !== first) return Number.NaN;
    return first;
  }

  /** From the packed transform Z = A + iB, |A_k|² into #power and |B_k|² into #powerB. */
  #splitPower(pair: boolean): void {
    const n = this.options.nFft;
    const re = this.#re;
    const im = this.#im;
    for (let k = 0; k <= n / 2; k++) {
      const nk = k === 0 ? 0 : n - k;
      // A_k = (Z_k + conj(Z_{N−k})) / 2, B_k = (Z_k − conj(Z_{N−k})) / 2i
      const aRe = (re[k]! + re[nk]!) / 2;
      const aIm = (im[k]! - im[nk]!) / 2;
      this.#power[k] = aRe * aRe + aIm * aIm;
      if (pair) {
        const bRe = (im[k]! + im[nk]!) / 2;
        const bIm = (re[nk]! - re[k]!) / 2;
        this.#powerB[k] = bRe * bRe + bIm * bIm;
      }
    }
  }

  /** log10 mel energies of one frame into column t; returns their maximum. */
  #melInto(power: Float64Array, out: Float32Array, t: number, frames: number): number {
    let max = -Infinity;
    for (let m = 0; m < this.#filters.length; m++) {
      const { start, weights } = this.#filters[m]!;
      let sum = 0;
      for (let i = 0; i < weights.length; i++) sum += weights[i]! * power[start + i]!;
      const v = Math.log10(Math.max(melFloor, sum));
      out[m * frames + t] = v;
      if (v > max) max = v;
    }
    return max;
  }
}

/** Sample `i` of `audio` reflect-padded at both ends (numpy's "reflect": the edge is not repeated). */
function centred(audio: Float32Array, i: number): number {
  const n = audio.length;
  if (i < 0) return audio[-i]!;
  if (i >= n) return audio[2 * (n - 1) - i]!;
  return audio[i]!;
}

const hzToMel = (hz: number) => (hz < 1000 ? (3 * hz) / 200 : 15 + (Math.log(hz / 1000) * 27) / Math.log(6.4));
const melToHz = (mel: number) => (mel < 15 ? (200 * mel) / 3 : 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15)));

/** Triangular filters evenly spaced on the Slaney mel scale, each normalised to constant area ("slaney"). */
function slaneyMelFilters(bins: number, nMels: number, fMin: number, fMax: number, sampleRate: number): MelFilter[] {
  const melMin = hzToMel(fMin);
  const melMax = hzToMel(fMax);
  const edges = Array.from({ length: nMels + 2 }, (_, i) => melToHz(melMin + ((melMax - melMin) * i) / (nMels + 1)));
  const binHz = (k: number) => (k * Math.floor(sampleRate / 2)) / (bins - 1);
  const filters: MelFilter[] = [];
  for (let m = 0; m < nMels; m++) {
    const [lo, centre, hi] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const norm = 2 / (hi - lo);
    const weights: number[] = [];
    let start = -1;
    for (let k = 0; k < bins; k++) {
      const f = binHz(k);
      const w = Math.max(0, Math.min((f - lo) / (centre - lo), (hi - f) / (hi - centre))) * norm;
      if (w > 0) {
        if (start === -1) start = k;
        weights.length = k - start + 1;
        weights[k - start] = w;
      }
    }
    filters.push({ start: Math.max(0, start), weights: Float64Array.from(weights, (w) => w ?? 0) });
  }
  return filters;
}
