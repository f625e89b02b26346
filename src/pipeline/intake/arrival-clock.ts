/**
 * Maps the VAD's stream time (ms of audio pushed so far) back to the wall-clock time at which that
 * audio arrived, so a turn's latency can start where the user really stopped speaking. Keeps the
 * last `capacity` frames (preallocated); older times are extrapolated at real-time pace from the
 * oldest frame kept.
 */
export class ArrivalClock {
  private readonly ends: Float64Array;
  private readonly arrivals: Float64Array;
  private count = 0;
  private total = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly capacity = 1024,
  ) {
    this.ends = new Float64Array(capacity);
    this.arrivals = new Float64Array(capacity);
  }

  /** When the last frame arrived (wall time, ms); -Infinity before the first. */
  get lastArrival(): number {
    return this.count === 0 ? -Infinity : this.arrivals[(this.count - 1) % this.capacity]!;
  }

  /** A frame of `samples` samples arrived at wall time `at` (ms). */
  record(samples: number, at: number): void {
    this.total += samples;
    const i = this.count % this.capacity;
    this.ends[i] = this.total;
    this.arrivals[i] = at;
    this.count++;
  }

  /**
   * The wall time at which the sample at stream time `streamMs` was spoken, as far as the server
   * can tell: the arrival of the frame that carried it, less the audio after it in that frame.
   */
  wallTimeOf(streamMs: number): number {
    const sample = (streamMs * this.sampleRate) / 1000;
    const oldest = Math.max(0, this.count - this.capacity);
    let found = this.count - 1;
    // Newest first: the sample asked for is almost always in the last second of audio.
    for (let n = this.count - 1; n >= oldest; n--) {
      if (this.ends[n % this.capacity]! < sample) break;
      found = n;
    }
    if (found < 0) return Number.NaN;
    const i = found % this.capacity;
    return this.arrivals[i]! - ((this.ends[i]! - sample) * 1000) / this.sampleRate;
  }
}
