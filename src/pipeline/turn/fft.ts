/**
 * A complex FFT of any size whose prime factors are small (Whisper's 400 = 4·4·5·5), as a
 * Stockham autosort decimation-in-frequency transform: one pass per factor, ping-ponging between
 * two preallocated buffers, twiddles precomputed. Used by the log-mel features (log-mel.ts), which
 * pack two real frames into one complex transform.
 */
export class Fft {
  readonly size: number;
  readonly #factors: number[];
  /** Per pass: the twiddles ω_n^(j·p) of that pass's sub-size n, as [re, im] pairs indexed j·m + p. */
  readonly #twiddles: Float64Array[] = [];
  /** Per factor r: the r × r matrix ω_r^(j·k), as [re, im] pairs indexed j·r + k. */
  readonly #roots = new Map<number, Float64Array>();
  readonly #bufRe: Float64Array;
  readonly #bufIm: Float64Array;
  readonly #aRe = new Float64Array(8);
  readonly #aIm = new Float64Array(8);

  constructor(size: number) {
    this.size = size;
    this.#factors = factorize(size);
    this.#bufRe = new Float64Array(size);
    this.#bufIm = new Float64Array(size);
    let n = size;
    for (const r of this.#factors) {
      const m = n / r;
      const tw = new Float64Array(2 * n);
      for (let j = 0; j < r; j++) {
        for (let p = 0; p < m; p++) {
          const angle = (-2 * Math.PI * j * p) / n;
          tw[2 * (j * m + p)] = Math.cos(angle);
          tw[2 * (j * m + p) + 1] = Math.sin(angle);
        }
      }
      this.#twiddles.push(tw);
      if (!this.#roots.has(r)) {
        const roots = new Float64Array(2 * r * r);
        for (let jk = 0; jk < r * r; jk++) {
          const angle = (-2 * Math.PI * ((Math.floor(jk / r) * (jk % r)) % r)) / r;
          roots[2 * jk] = Math.cos(angle);
          roots[2 * jk + 1] = Math.sin(angle);
        }
        this.#roots.set(r, roots);
      }
      n = m;
    }
  }

  /** In place: (re, im) becomes its discrete Fourier transform X_k = Σ x_t·e^(−2πi·kt/N). */
  transform(re: Float64Array, im: Float64Array): void {
    let xRe = re;
    let xIm = im;
    let yRe = this.#bufRe;
    let yIm = this.#bufIm;
    let n = this.size;
    let s = 1;
    const aRe = this.#aRe;
    const aIm = this.#aIm;
    for (let pass = 0; pass < this.#factors.length; pass++) {
      const r = this.#factors[pass]!;
      const m = n / r;
      const tw = this.#twiddles[pass]!;
      const roots = this.#roots.get(r)!;
      for (let p = 0; p < m; p++) {
        for (let q = 0; q < s; q++) {
          for (let k = 0; k < r; k++) {
            aRe[k] = xRe[q + s * (p + k * m)]!;
            aIm[k] = xIm[q + s * (p + k * m)]!;
          }
          for (let j = 0; j < r; j++) {
            let sumRe = 0;
            let sumIm = 0;
            for (let k = 0; k < r; k++) {
              const wr = roots[2 * (j * r + k)]!;
              const wi = roots[2 * (j * r + k) + 1]!;
              sumRe += aRe[k]! * wr - aIm[k]! * wi;
              sumIm += aRe[k]! * wi + aIm[k]! * wr;
            }
            const tr = tw[2 * (j * m + p)]!;
            const ti = tw[2 * (j * m + p) + 1]!;
            const out = q + s * (r * p + j);
            yRe[out] = sumRe * tr - sumIm * ti;
            yIm[out] = sumRe * ti + sumIm * tr;
          }
        }
      }
      [xRe, yRe] = [yRe, xRe];
      [xIm, yIm] = [yIm, xIm];
      n = m;
      s *= r;
    }
    if (xRe !== re) {
      re.set(xRe);
      im.set(xIm);
    }
  }
}

/** Prime factors (4 taken whole where possible, which saves passes); throws above 7. */
function factorize(size: number): number[] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`FFT size must be a positive integer, got ${size}`);
  const out: number[] = [];
  let n = size;
  for (const f of [4, 2, 3, 5, 7]) {
    while (n % f === 0) {
      out.push(f);
      n /= f;
    }
  }
  if (n !== 1) throw new Error(`FFT size ${size} has a prime factor above 7`);
  return out;
}
