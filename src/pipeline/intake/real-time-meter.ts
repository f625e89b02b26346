/**
 * A token bucket measured in audio milliseconds: it fills at one millisecond per millisecond of
 * wall time up to `burstMs`, and each frame admitted takes its duration out. Audio arriving
 * faster than real time for longer than the allowance finds it empty and is refused.
 */
export class RealTimeMeter {
  private credit: number;
  private at: number;

  constructor(
    private readonly burstMs: number,
    now: number,
  ) {
    this.credit = burstMs;
    this.at = now;
  }

  /** Takes `durationMs` of credit if there is enough; false (nothing taken) otherwise. */
  admit(durationMs: number, now: number): boolean {
    this.credit = Math.min(this.burstMs, this.credit + (now - this.at));
    this.at = now;
    if (this.credit < durationMs) return false;
    this.credit -= durationMs;
    return true;
  }
}
