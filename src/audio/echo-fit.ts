/**
 * How much of a window of what was heard the agent's own played audio explains: the best fit
 * heard[t] ≈ g · played[t − lag] over a range of lags, by normalized cross-correlation (ncc). The
 * gain needs no estimate (ncc is blind to it, and to the echo's polarity): the share of the window's
 * energy the best scaled copy leaves unexplained is 1 − ncc². A line's echo is a delayed, attenuated
 * copy (linear), so it leaves little; a caller's voice is not correlated with what was played and
 * leaves most of its own energy.
 *
 * Cost: a coarse search of every lag on 4×-decimated signals (sums of 4 samples), then the three best
 * coarse lags refined at full rate; a `hint` (the lag found before: an echo's delay holds still for
 * long stretches) is tried first and spares the search when it already fits. All buffers are allocated
 * once.
 */
const decimation = 4;
/** How far around the hint, and around a coarse lag, the full-rate search looks (samples). */
const hintRadius = 8;
const refineRadius = decimation;
const candidates = 3;

export interface EchoFitOptions {
  /** Samples in the heard window. A multiple of 4. */
  window: number;
  /** Shortest lag searched, in samples: may be negative (the echo early by the model's reckoning). */
  minLag: number;
  /** Longest lag searched, in samples. */
  maxLag: number;
}

export interface EchoFit {
  /** Where played audio best explains the window (samples; lag 0: played at the same position). */
  lag: number;
  /** Share of the window's energy the best scaled copy of the played audio leaves unexplained (0..1). */
  residual: number;
}

export class EchoFitter {
  readonly window: number;
  readonly minLag: number;
  readonly maxLag: number;
  /**
   * Reference samples `fit` reads: played positions [end − window − maxLag, end − minLag) for a
   * heard window ending at `end`; the segment for lag L starts at index maxLag − L.
   */
  readonly span: number;
  readonly #coarseHeard: Float32Array;
  readonly #coarseRef: Float32Array;
  /** Prefix sums of the coarse reference's squares. */
  readonly #coarseEnergy: Float64Array;
  readonly #coarseScore: Float32Array;
  readonly #best = new Int32Array(candidates);

  constructor(options: EchoFitOptions) {
    const { window, minLag, maxLag } = options;
    if (!Number.isInteger(window) || window <= 0 || window % decimation !== 0)
      throw new RangeError(`EchoFitter: window must be a positive multiple of ${decimation}`);
    if (!Number.isInteger(minLag) || !Number.isInteger(maxLag) || maxLag < minLag)
      throw new RangeError('EchoFitter: lags must be integers, minLag ≤ maxLag');
    this.window = window;
    this.minLag = minLag;
    this.maxLag = maxLag;
    this.span = window + maxLag - minLag;
    const coarseSpan = Math.ceil(this.span / decimation);
    this.#coarseHeard = new Float32Array(window / decimation);
    this.#coarseRef = new Float32Array(coarseSpan);
    this.#coarseEnergy = new Float64Array(coarseSpan + 1);
    this.#coarseScore = new Float32Array(Math.floor((maxLag - minLag) / decimation) + 1);
  }

  /**
   * The best fit of `reference` (`span` samples, see above) over `heard` (`window` samples, its sum
   * of squares `heardEnergy` > 0). `hint`: a lag to try first.
   */
  fit(heard: Float32Array, heardEnergy: number, reference: Float32Array, hint: number | null = null): EchoFit {
    let best: EchoFit = { lag: 0, residual: 1 };
    const consider = (lag: number) => {
      const score = this.#score(heard, reference, this.maxLag - lag);
      if (1 - score / heardEnergy < best.residual) best = { lag, residual: Math.max(0, 1 - score / heardEnergy) };
    };
    if (hint !== null) {
      for (let lag = Math.max(this.minLag, hint - hintRadius); lag <= Math.min(this.maxLag, hint + hintRadius); lag++)
        consider(lag);
      if (best.residual < 0.25) return best;
    }
    for (const offset of this.#coarse(heard, reference)) {
      const centre = offset * decimation;
      const from = Math.max(0, centre - refineRadius);
      const to = Math.min(this.maxLag - this.minLag, centre + refineRadius);
      for (let o = from; o <= to; o++) consider(this.maxLag - o);
    }
    return best;
  }

  /** ⟨heard, ref⟩² / ‖ref‖² for the reference segment starting at `offset`: the energy it explains. */
  #score(heard: Float32Array, reference: Float32Array, offset: number): number {
    let dot = 0;
    let energy = 0;
    for (let t = 0; t < this.window; t++) {
      const r = reference[offset + t]!;
      dot += heard[t]! * r;
      energy += r * r;
    }
    return energy > 0 ? (dot * dot) / energy : 0;
  }

  /** The coarse offsets (reference index / 4) of the best few ncc² on the decimated signals. */
  #coarse(heard: Float32Array, reference: Float32Array): Int32Array {
    const ch = this.#coarseHeard;
    const cr = this.#coarseRef;
    const ce = this.#coarseEnergy;
    decimate(heard, ch);
    decimate(reference, cr);
    for (let i = 0; i < cr.length; i++) ce[i + 1] = ce[i]! + cr[i]! * cr[i]!;
    const n = ch.length;
    const scores = this.#coarseScore;
    for (let m = 0; m < scores.length; m++) {
      let dot = 0;
      for (let j = 0; j < n; j++) dot += ch[j]! * cr[m + j]!;
      const energy = ce[m + n]! - ce[m]!;
      scores[m] = energy > 1e-12 ? (dot * dot) / energy : 0;
    }
    // the best, then the best not next to one already taken (a voiced sound's pitch makes rival peaks)
    for (let k = 0; k < candidates; k++) {
      let pick = -1;
      for (let m = 0; m < scores.length; m++) {
        if (pick >= 0 && scores[m]! <= scores[pick]!) continue;
        let near = false;
        for (let q = 0; q < k; q++) if (Math.abs(this.#best[q]! - m) <= 2) near = true;
        if (!near) pick = m;
      }
      this.#best[k] = Math.max(0, pick);
    }
    return this.#best;
  }
}

/** Sums of `decimation` samples: a crude low-pass and 4× fewer samples (a trailing part-group counts what it has). */
function decimate(from: Float32Array, to: Float32Array): void {
  for (let i = 0; i < to.length; i++) {
    let sum = 0;
    const end = Math.min(from.length, (i + 1) * decimation);
    for (let k = i * decimation; k < end; k++) sum += from[k]!;
    to[i] = sum;
  }
}
