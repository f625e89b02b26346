/**
 * `promise`, or a rejection with `timedOut()` once `ms` have passed without it settling. The timer
 * is cleared either way; the promise that lost the race cannot become an unhandled rejection.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  promise.catch(() => {}); // its own caller sees its rejection through the race, or it lost the race
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
