import { EchoFitter } from './echo-fit.js';
import { PlayedLine } from './played-line.js';

/** How an EchoGuard listens (defaultEchoGuardOptions: a phone line). */
export interface EchoGuardOptions {
  /** Rate of the audio played and heard (a phone line: 8000). */
  sampleRate: number;
  /**
   * Longest echo delay looked for, behind the playing clock: the line's echo, the network's round
   * trip, and the phone's frames still in flight while Parley sends (a loaded process: 200-300 ms).
   */
  maxDelayMs: number;
  /** How much earlier than the playing clock says an echo may come (the clock's error). */
  earlyMs: number;
  /** Heard audio compared at a time (ending with the newest frame). */
  windowMs: number;
  /** Share of a window's energy left unexplained by the best echo fit above which it is the caller's. */
  residualLimit: number;
  /** Frames in a row judged the caller's before they pass. */
  releaseFrames: number;
  /** How long audio passes after the caller's last frame. */
  holdMs: number;
  /** Unexplained energy below this level (dBFS) is the line's noise, not a caller. */
  quietDbfs: number;
  /** Nor is unexplained energy within this many dB of the line's noise floor (the quietest window of the last ~2 s). */
  noiseMarginDb: number;
}

export const defaultEchoGuardOptions: Readonly<EchoGuardOptions> = Object.freeze({
  sampleRate: 8000,
  maxDelayMs: 1000,
  earlyMs: 100,
  windowMs: 40,
  residualLimit: 0.35,
  releaseFrames: 3,
  holdMs: 300,
  quietDbfs: -50,
  noiseMarginDb: 8,
});

/** What the guard did, for tests and logs. */
export interface EchoGuardCounts {
  /** Frames checked against what was played. */
  checked: number;
  /** Frames handed on as silence (echo). */
  muted: number;
  /** Times the caller's voice opened the guard. */
  released: number;
}

const int16Scale = 1 / 32768;

/**
 * Keeps the agent's own voice, coming back on a phone line (a speakerphone, a carrier that does not
 * cancel echo), away from whatever listens to the caller (the VAD, the recogniser). It is told what
 * the phone was sent (`played`) and hears the phone's audio frame by frame (`hear`); while the agent
 * has played anything in the last `maxDelayMs`, each frame is checked against it (echo-fit.ts): a
 * frame the played audio explains, delayed and scaled, is echo and handed on as silence; the
 * caller's voice is handed on as it came once `releaseFrames` frames running say so (one frame can
 * be a fluke where the echo's delay jumps), the frames before it included (held back until then),
 * and it stays open `holdMs` past the caller's last frame. With nothing played in reach, frames pass
 * untouched and nothing is computed.
 */
export class EchoGuard {
  readonly options: Readonly<EchoGuardOptions>;
  readonly counts: EchoGuardCounts = { checked: 0, muted: 0, released: 0 };
  readonly #line: PlayedLine;
  readonly #fitter: EchoFitter;
  /** The last `window` samples heard, as floats, oldest first. */
  readonly #heard: Float32Array;
  readonly #reference: Float32Array;
  readonly #quietEnergy: number;
  readonly #holdSamples: number;
  /** Inbound samples heard so far: the position of the next frame. */
  #position = 0;
  #open = false;
  /** Samples heard since the caller's last frame while open. */
  #sinceCaller = 0;
  /** Caller frames held back until `releaseFrames` in a row. */
  readonly #held: Int16Array[] = [];
  #lag: number | null = null;
  readonly #noise: NoiseFloor;
  readonly #silence = new Map<number, Int16Array>();

  constructor(options: Partial<EchoGuardOptions> = {}) {
    this.options = Object.freeze({ ...defaultEchoGuardOptions, ...options });
    const { sampleRate, maxDelayMs, earlyMs, windowMs, quietDbfs, holdMs } = this.options;
    const perMs = sampleRate / 1000;
    const window = Math.round((windowMs * perMs) / 4) * 4;
    this.#fitter = new EchoFitter({
      window,
      minLag: -Math.round(earlyMs * perMs),
      maxLag: Math.round(maxDelayMs * perMs),
    });
    this.#heard = new Float32Array(window);
    this.#reference = new Float32Array(this.#fitter.span);
    // the ring holds the reference span and the audio queued ahead of the phone (a few seconds)
    this.#line = new PlayedLine(this.#fitter.span + 4 * sampleRate);
    this.#quietEnergy = window * 10 ** (quietDbfs / 10);
    this.#holdSamples = Math.round(holdMs * perMs);
    this.#noise = new NoiseFloor(sampleRate);
  }

  /** Audio sent to the phone now (it plays after what the phone holds). */
  played(samples: Int16Array): void {
    this.#line.play(samples, this.#position);
  }

  /** The phone dropped what it held (`clear`). */
  dropped(): void {
    this.#line.drop(this.#position);
  }

  /** One frame from the phone; `pass` gets what to hand on, in order (held frames come later). */
  hear(samples: Int16Array, pass: (samples: Int16Array) => void): void {
    const end = this.#position + samples.length;
    this.#remember(samples);
    this.#position = end;
    const caller = this.#callerSpeaks(end);
    if (caller === null) {
      // nothing played in reach: no echo possible
      this.#open = false;
      this.#lag = null;
      this.#flush(pass, true);
      pass(samples);
      return;
    }
    if (this.#open) {
      this.#sinceCaller = caller ? 0 : this.#sinceCaller + samples.length;
      if (this.#sinceCaller >= this.#holdSamples) this.#open = false;
      pass(samples);
      return;
    }
    if (!caller) {
      this.#flush(pass, false);
      this.counts.muted++;
      pass(this.#silent(samples.length));
      return;
    }
    this.#held.push(samples);
    if (this.#held.length < this.options.releaseFrames) return;
    this.#open = true;
    this.#sinceCaller = 0;
    this.counts.released++;
    this.#flush(pass, true);
  }

  /**
   * Whether the window ending at `end` is the caller's (true), the agent's echo or the line's noise
   * (false), or null when nothing was played within reach of it.
   */
  #callerSpeaks(end: number): boolean | null {
    const fitter = this.#fitter;
    if (this.#line.head === 0 || this.#line.head <= end - fitter.window - fitter.maxLag) return null;
    let energy = 0;
    for (const v of this.#heard) energy += v * v;
    const noise = this.#noise.push(energy, end);
    const played = this.#line.read(end - fitter.window - fitter.maxLag, this.#reference);
    if (played === 0) return null;
    this.counts.checked++;
    const floor = Math.max(this.#quietEnergy, noise * 10 ** (this.options.noiseMarginDb / 10));
    if (energy < floor) return false;
    const fit = fitter.fit(this.#heard, energy, this.#reference, this.#lag);
    if (fit.residual <= this.options.residualLimit) this.#lag = fit.lag;
    return fit.residual > this.options.residualLimit && fit.residual * energy >= floor;
  }

  #remember(samples: Int16Array): void {
    const window = this.#heard;
    const n = Math.min(samples.length, window.length);
    window.copyWithin(0, n);
    const from = samples.length - n;
    for (let i = 0; i < n; i++) window[window.length - n + i] = samples[from + i]! * int16Scale;
  }

  /** Hands on the held frames: as they came (`asHeard`), or as silence. */
  #flush(pass: (samples: Int16Array) => void, asHeard: boolean): void {
    if (this.#held.length === 0) return;
    for (const frame of this.#held.splice(0)) {
      if (!asHeard) this.counts.muted++;
      pass(asHeard ? frame : this.#silent(frame.length));
    }
  }

  /** Silence of `length` samples (one shared buffer per length: receivers read, never write, frames). */
  #silent(length: number): Int16Array {
    let zeros = this.#silence.get(length);
    if (zeros === undefined) {
      zeros = new Int16Array(length);
      this.#silence.set(length, zeros);
    }
    return zeros;
  }
}

/** The noise floor is the quietest window of the last 8 blocks of 250 ms. */
const noiseBlocks = 8;
const noiseBlockMs = 250;

/** The line's noise: the least window energy heard in the last `noiseBlocks` blocks (minimum statistics). */
class NoiseFloor {
  readonly #mins = new Float64Array(noiseBlocks).fill(Number.POSITIVE_INFINITY);
  readonly #blockSamples: number;
  #block = -1;

  constructor(sampleRate: number) {
    this.#blockSamples = Math.round((sampleRate * noiseBlockMs) / 1000);
  }

  /** One window's energy, heard up to position `end`; returns the floor (Infinity until a window is heard). */
  push(energy: number, end: number): number {
    const block = Math.floor(end / this.#blockSamples);
    if (block !== this.#block) {
      this.#block = block;
      this.#mins[block % noiseBlocks] = Number.POSITIVE_INFINITY;
    }
    const slot = block % noiseBlocks;
    if (energy < this.#mins[slot]!) this.#mins[slot] = energy;
    let floor = Number.POSITIVE_INFINITY;
    for (const m of this.#mins) if (m < floor) floor = m;
    return floor;
  }
}
