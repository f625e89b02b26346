/**
 * A fixed-capacity ring of PCM16 samples addressed by absolute sample index (0 = the first sample
 * ever written). Writing never allocates; reading hands out at most two views (the range may wrap),
 * so callers convert or copy straight into their own preallocated buffers.
 */
const int16Scale = 1 / 32768;

export class Int16Ring {
  readonly #buffer: Int16Array;
  #written = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0)
      throw new RangeError('Int16Ring: capacity must be a positive integer');
    this.#buffer = new Int16Array(capacity);
  }

  /** Total samples ever written; the absolute index one past the newest sample. */
  get written(): number {
    return this.#written;
  }

  /** Absolute index of the oldest sample still held. */
  get oldest(): number {
    return Math.max(0, this.#written - this.capacity);
  }

  /** Appends samples, overwriting the oldest when full. `samples` longer than the ring keep only their tail. */
  write(samples: Int16Array): void {
    let src = samples;
    if (src.length > this.capacity) {
      this.#written += src.length - this.capacity;
      src = src.subarray(src.length - this.capacity);
    }
    const at = this.#written % this.capacity;
    const first = this.capacity - at;
    if (src.length <= first) {
      this.#buffer.set(src, at); // the usual case: no wrap, no view made (this runs for every frame)
    } else {
      this.#buffer.set(src.subarray(0, first), at);
      this.#buffer.set(src.subarray(first), 0);
    }
    this.#written += src.length;
  }

  /**
   * Calls `visit` with the one or two views covering absolute range [from, to) and each view's offset
   * from `from`. Throws when the range is no longer (or not yet) held.
   */
  read(from: number, to: number, visit: (view: Int16Array, offset: number) => void): void {
    if (from < this.oldest || to > this.#written || from > to) {
      throw new RangeError(`Int16Ring: range [${from}, ${to}) is outside [${this.oldest}, ${this.#written})`);
    }
    if (from === to) return;
    const start = from % this.capacity;
    const length = to - from;
    const first = Math.min(length, this.capacity - start);
    visit(this.#buffer.subarray(start, start + first), 0);
    if (first < length) visit(this.#buffer.subarray(0, length - first), first);
  }

  /**
   * Writes absolute range [from, to) as float32 in [-1, 1) into `dst` at `dstOffset`: the range
   * checks of `read`, without making a view or a callback (the VAD does this for every window).
   * Returns the range's energy, the sum of the squares of the values written, taken in the same
   * pass (the VAD's silence floor reads it).
   */
  toFloat32(from: number, to: number, dst: Float32Array, dstOffset: number): number {
    if (from < this.oldest || to > this.#written || from > to || dstOffset + (to - from) > dst.length) {
      throw new RangeError(`Int16Ring: range [${from}, ${to}) is outside [${this.oldest}, ${this.#written})`);
    }
    const buffer = this.#buffer;
    const capacity = this.capacity;
    let at = from % capacity;
    let energy = 0;
    for (let i = dstOffset, end = dstOffset + (to - from); i < end; i++) {
      const value = buffer[at]! * int16Scale;
      dst[i] = value;
      energy += value * value;
      if (++at === capacity) at = 0;
    }
    return energy;
  }

  /** Copies absolute range [from, to) into a new array: once per utterance, never per frame. */
  copy(from: number, to: number): Int16Array {
    const out = new Int16Array(to - from);
    this.read(from, to, (view, offset) => out.set(view, offset));
    return out;
  }

  /** Forgets everything (capacity kept); absolute indices restart at 0. */
  reset(): void {
    this.#written = 0;
  }
}
