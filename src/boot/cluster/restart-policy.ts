/**
 * When a crashed worker process is started again: capped exponential backoff over the crashes of
 * the last minute (all workers together), and a bound on them. Past `maxPerMinute` crashes within
 * one minute something is wrong with every worker (a bad model file, a broken deploy), so
 * restarting stops and the primary shuts Parley down instead of spinning.
 */
export interface RestartPolicyOptions {
  /** Delay before the first restart of a quiet minute; doubles with each further crash. */
  baseMs: number;
  /** Longest delay. */
  maxMs: number;
  /** Crashes within a minute after which restarts stop. */
  maxPerMinute: number;
}

export const defaultRestartPolicyOptions: RestartPolicyOptions = { baseMs: 500, maxMs: 10_000, maxPerMinute: 10 };

const windowMs = 60_000;

export class RestartPolicy {
  private readonly crashes: number[] = [];

  constructor(
    private readonly options: RestartPolicyOptions = defaultRestartPolicyOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash; the delay before its restart, or undefined when restarts have stopped. */
  crashed(): number | undefined {
    const now = this.now();
    this.crashes.push(now);
    while (this.crashes.length > 0 && this.crashes[0]! <= now - windowMs) this.crashes.shift();
    const recent = this.crashes.length;
    if (recent > this.options.maxPerMinute) return undefined;
    return Math.min(this.options.baseMs * 2 ** (recent - 1), this.options.maxMs);
  }

  /** Crashes within the last minute. */
  get recent(): number {
    const since = this.now() - windowMs;
    return this.crashes.filter((t) => t > since).length;
  }
}
