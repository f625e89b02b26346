/**
 * Polls `probe` until `done` accepts its value, or fails after `timeoutMs` with the last value in
 * the message. For waiting on asynchronous outcomes (deliveries, sweeps) without fixed sleeps.
 */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  {
    timeoutMs = 10_000,
    intervalMs = 20,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      let shown: string;
      try {
        shown = JSON.stringify(value)?.slice(0, 500) ?? String(value);
      } catch {
        shown = String(value);
      }
      throw new Error(`${what} not reached within ${timeoutMs} ms; last value: ${shown}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
