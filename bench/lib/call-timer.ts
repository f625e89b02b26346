/**
 * A bench-only probe: wraps one async method of a live object (a repository, the VAD) so that its
 * calls are timed while `recording` is on. The wrapper adds one promise hop per call; it never
 * changes arguments, results or errors.
 */
export class CallTimer {
  recording = false;
  private samples: number[] = [];

  add(ms: number): void {
    this.samples.push(ms);
  }

  /** The durations (ms) recorded since the last `take`, and forgets them. */
  take(): number[] {
    const out = this.samples;
    this.samples = [];
    return out;
  }
}

type Method<T, K extends keyof T> = T[K] extends (...args: infer A) => Promise<unknown> ? A : never;

/** Replaces `target[key]` with a timed wrapper; `accept` picks which calls count (all by default). */
export function timeCalls<T extends object, K extends keyof T>(
  target: T,
  key: K,
  accept: (...args: Method<T, K>) => boolean = () => true,
): CallTimer {
  const original = target[key] as unknown as (...args: unknown[]) => Promise<unknown>;
  const timer = new CallTimer();
  const wrapped = async (...args: unknown[]): Promise<unknown> => {
    if (!timer.recording || !accept(...(args as Method<T, K>))) return original.apply(target, args);
    const t0 = performance.now();
    try {
      return await original.apply(target, args);
    } finally {
      timer.add(performance.now() - t0);
    }
  };
  (target as Record<K, unknown>)[key] = wrapped;
  return timer;
}
