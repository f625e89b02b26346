/**
 * One promised value reused for `ttlMs` after it settles (and by every caller while it is in
 * flight), so probes of upstreams run at most once per window however often they are asked for.
 * A rejection is not kept: the next caller tries again.
 */
export class SettledCache<T> {
  private value: Promise<T> | undefined;
  /** When the value settled (ms since epoch); undefined while in flight. */
  private settledAt: number | undefined;

  constructor(private readonly ttlMs: number) {}

  get(load: () => Promise<T>): Promise<T> {
    if (this.value !== undefined && (this.settledAt === undefined || Date.now() - this.settledAt < this.ttlMs)) {
      return this.value;
    }
    const value = load();
    this.value = value;
    this.settledAt = undefined;
    value.then(
      () => {
        if (this.value === value) this.settledAt = Date.now();
      },
      () => {
        // the caller of get() gets the rejection; this only forgets the failed load so the next get() retries
        if (this.value === value) this.value = undefined;
      },
    );
    return value;
  }

  /** Drops the value: the next caller loads afresh (a change this process made is seen at once). */
  clear(): void {
    this.value = undefined;
    this.settledAt = undefined;
  }
}
