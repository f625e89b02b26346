import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Real-time pacing, as a microphone sends: tick k is due `k × periodMs` after the clock was made,
 * so a late timer makes the next wait shorter and lateness does not add up over a stream.
 */
export class FrameClock {
  readonly #start = performance.now();
  #ticks = 0;

  constructor(readonly periodMs: number) {}

  /** Waits until the next tick is due (not at all when it is already past). */
  async tick(): Promise<void> {
    const wait = this.#start + ++this.#ticks * this.periodMs - performance.now();
    if (wait > 0) await sleep(wait);
  }
}
