/**
 * A streaming polyphase resampler for mono PCM16 (windowed-sinc, Blackman window), in plain
 * TypeScript, for every rational rate pair (48 000 → 16 000 is 1/3, 44 100 → 16 000 is 160/441).
 *
 * Output sample n sits at input time n·M/L (L/M = out/in reduced); it is the dot product of the
 * 2W input samples around that time with one of L precomputed filter phases. Input is kept in one
 * float buffer that grows once to (largest frame + 2W) and is shifted in place, so pushing a frame
 * allocates only its output. The filter looks W input samples ahead (under 1 ms at 48 kHz), so
 * output trails input by that much until `flush()`.
 */
const zeroCrossings = 10;
/** Passband edge as a fraction of the lower Nyquist frequency. */
const rolloff = 0.92;
const empty = new Int16Array(0);

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export class Resampler {
  readonly inputRate: number;
  readonly outputRate: number;
  readonly #up: number;
  readonly #down: number;
  readonly #half: number;
  readonly #taps: Float32Array;
  /** Decimation only: the one phase folded about its centre (tap k weighs inputs centre ± k). */
  readonly #fold: Float64Array;
  #buf: Float64Array;
  /** Absolute input index of `#buf[0]` (negative at first: zeros before the stream). */
  #bufStart: number;
  #bufLen: number;
  /** Index of the next output sample. */
  #next = 0;

  constructor(inputRate: number, outputRate: number) {
    for (const rate of [inputRate, outputRate]) {
      if (!Number.isInteger(rate) || rate < 1000 || rate > 192_000)
        throw new RangeError(`Resampler: rate ${rate} Hz is out of range`);
    }
    this.inputRate = inputRate;
    this.outputRate = outputRate;
    const g = gcd(inputRate, outputRate);
    this.#up = outputRate / g;
    this.#down = inputRate / g;
    const cutoff = rolloff * Math.min(1, this.#up / this.#down);
    this.#half = Math.ceil(zeroCrossings / cutoff);
    this.#taps = designTaps(this.#up, this.#half, cutoff);
    this.#fold = Float64Array.from({ length: this.#half }, (_, k) => this.#taps[this.#half - 1 + k]!);
    this.#buf = new Float64Array(4 * this.#half + 4096);
    this.#bufStart = -this.#half;
    this.#bufLen = this.#half;
  }

  /** Feeds input samples; returns the output samples they complete (a new array, possibly empty). */
  push(samples: Int16Array): Int16Array {
    this.#reserve(samples.length);
    const at = this.#bufLen;
    this.#buf.set(samples, at); // converts natively
    this.#bufLen += samples.length;
    return this.#produce();
  }

  /** Ends the stream: pads with silence so the last input samples come out; returns them. */
  flush(): Int16Array {
    this.#reserve(this.#half);
    this.#buf.fill(0, this.#bufLen, this.#bufLen + this.#half);
    this.#bufLen += this.#half;
    return this.#produce();
  }

  #reserve(extra: number): void {
    if (this.#bufLen + extra <= this.#buf.length) return;
    const grown = new Float64Array(this.#bufLen + extra + 2 * this.#half);
    grown.set(this.#buf.subarray(0, this.#bufLen));
    this.#buf = grown;
  }

  #produce(): Int16Array {
    const up = this.#up;
    const down = this.#down;
    const half = this.#half;
    const end = this.#bufStart + this.#bufLen;
    // output n needs input up to floor(n·down/up) + half, which must be < end
    const last = Math.ceil(((end - half) * up) / down);
    const count = Math.max(0, last - this.#next);
    if (count === 0) return empty;
    const out = new Int16Array(count);
    if (this.#up === 1) this.#decimate(out);
    else this.#interpolate(out);
    this.#next += count;
    // drop input no later output needs
    const keepFrom = Math.floor((this.#next * this.#down) / this.#up) - this.#half + 1;
    const shift = keepFrom - this.#bufStart;
    if (shift > 0) {
      this.#buf.copyWithin(0, shift, this.#bufLen);
      this.#bufLen -= shift;
      this.#bufStart = keepFrom;
    }
    return out;
  }

  /**
   * Integer decimation (48 000 → 16 000): one phase, whose taps are symmetric about the output
   * time, so each output is the centre tap plus (half − 1) folded pairs: half the multiplies.
   */
  #decimate(out: Int16Array): void {
    const down = this.#down;
    const half = this.#half;
    const buf = this.#buf;
    const fold = this.#fold;
    // the centre sample of output n is input n·down, at index n·down − bufStart in the buffer
    let centre = this.#next * down - this.#bufStart;
    const c0 = fold[0]!;
    for (let i = 0; i < out.length; i++, centre += down) {
      // four accumulators: independent adds keep the FPU pipeline full
      let a = c0 * buf[centre]!;
      let b = 0;
      let c = 0;
      let d = 0;
      let k = 1;
      for (; k + 3 < half; k += 4) {
        a += fold[k]! * (buf[centre - k]! + buf[centre + k]!);
        b += fold[k + 1]! * (buf[centre - k - 1]! + buf[centre + k + 1]!);
        c += fold[k + 2]! * (buf[centre - k - 2]! + buf[centre + k + 2]!);
        d += fold[k + 3]! * (buf[centre - k - 3]! + buf[centre + k + 3]!);
      }
      for (; k < half; k++) a += fold[k]! * (buf[centre - k]! + buf[centre + k]!);
      const acc = a + b + (c + d);
      out[i] = acc >= 32767 ? 32767 : acc <= -32768 ? -32768 : Math.round(acc);
    }
  }

  #interpolate(out: Int16Array): void {
    const count = out.length;
    const up = this.#up;
    const down = this.#down;
    const half = this.#half;
    const width = 2 * half;
    const buf = this.#buf;
    const taps = this.#taps;
    const first = this.#next;
    const offset = 1 - half - this.#bufStart;
    for (let i = 0; i < count; i++) {
      const t = (first + i) * down;
      const base = Math.floor(t / up);
      const from = base + offset;
      const tap = (t - base * up) * width;
      let acc = 0;
      for (let j = 0; j < width; j++) acc += buf[from + j]! * taps[tap + j]!;
      out[i] = acc >= 32767 ? 32767 : acc <= -32768 ? -32768 : Math.round(acc);
    }
  }
}

/** L phases × 2W taps; phase p, tap j weighs input (base − W + 1 + j) for output time base + p/L. */
function designTaps(phases: number, half: number, cutoff: number): Float32Array {
  const width = 2 * half;
  const taps = new Float32Array(phases * width);
  for (let p = 0; p < phases; p++) {
    let sum = 0;
    for (let j = 0; j < width; j++) {
      const t = p / phases + half - 1 - j; // distance from the output time to this input sample
      const x = cutoff * t;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const w =
        Math.abs(t) >= half
          ? 0
          : 0.42 + 0.5 * Math.cos((Math.PI * t) / half) + 0.08 * Math.cos((2 * Math.PI * t) / half);
      const v = cutoff * sinc * w;
      taps[p * width + j] = v;
      sum += v;
    }
    for (let j = 0; j < width; j++) taps[p * width + j]! /= sum; // unity gain at DC for every phase
  }
  return taps;
}
