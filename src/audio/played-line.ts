/**
 * What a phone has played, on the clock of the audio it sends back: a ring of the agent's PCM16
 * samples addressed by absolute position in the inbound stream (0 = the first sample heard). A
 * phone plays what it is sent after what it holds, at the same pace it sends its microphone's
 * audio, so audio sent when `heard` inbound samples have arrived plays from `max(heard, head)`:
 * on from the end of what is queued, or at once after a gap (silence in between). An echo of it
 * comes back at that position plus the line's delay. Writing and reading allocate nothing.
 */
const int16Scale = 1 / 32768;

export class PlayedLine {
  readonly #buffer: Int16Array;
  /** One past the last position written: the end of what the phone holds or has played. */
  #head = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0)
      throw new RangeError('PlayedLine: capacity must be a positive integer');
    this.#buffer = new Int16Array(capacity);
  }

  /** One past the last position played or queued (0: nothing was ever played). */
  get head(): number {
    return this.#head;
  }

  /** Audio sent while `heard` inbound samples had arrived: queued after what is held, or at `heard`. */
  play(samples: Int16Array, heard: number): void {
    const at = Math.max(heard, this.#head);
    // the silence since the last audio ended (a whole ring of it at most)
    for (let p = Math.max(this.#head, at - this.capacity); p < at; p++) this.#buffer[p % this.capacity] = 0;
    let src = samples;
    let from = at;
    if (src.length > this.capacity) {
      from += src.length - this.capacity;
      src = src.subarray(src.length - this.capacity);
    }
    const start = from % this.capacity;
    const first = Math.min(src.length, this.capacity - start);
    this.#buffer.set(src.subarray(0, first), start);
    if (first < src.length) this.#buffer.set(src.subarray(first), 0);
    this.#head = at + samples.length;
  }

  /** The phone dropped what it held (a `clear` while `heard` samples had arrived): the queue ends there. */
  drop(heard: number): void {
    this.#head = Math.max(Math.min(this.#head, heard), this.#head - this.capacity);
  }

  /**
   * Copies positions [from, from + out.length) into `out` as floats in [-1, 1); positions never
   * played, or no longer held, read as silence. Returns the sum of squares copied (0: nothing played there).
   */
  read(from: number, out: Float32Array): number {
    const lo = Math.max(from, this.#head - this.capacity, 0);
    const hi = Math.min(from + out.length, this.#head);
    let energy = 0;
    if (hi <= lo) {
      out.fill(0);
      return 0;
    }
    out.fill(0, 0, lo - from);
    for (let p = lo; p < hi; p++) {
      const v = this.#buffer[p % this.capacity]! * int16Scale;
      out[p - from] = v;
      energy += v * v;
    }
    out.fill(0, hi - from);
    return energy;
  }
}
