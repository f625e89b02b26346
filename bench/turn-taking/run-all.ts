/** Runs `fn` over `items`, `limit` at a time, the workers started `staggerMs` apart; results in order. */
export async function runAll<T, R>(
  items: T[],
  limit: number,
  staggerMs: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async (_, w) => {
    await new Promise((r) => setTimeout(r, w * staggerMs));
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
