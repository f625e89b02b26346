/** One item lent to one request; `release` gives it back (idempotent). */
export interface Lease<T> {
  readonly item: T;
  release(): void;
}

interface Waiter<T> {
  resolve: (lease: Lease<T>) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * A fixed set of items (a model's context sequences) lent one request at a time. At most
 * `items.length` requests hold one at once; the rest wait in arrival order. A waiter whose signal
 * aborts leaves the queue at once, rejected with the signal's reason, and never takes an item.
 * Backpressure policy: the queue is unbounded, its length is bounded by the sessions (each waits on
 * at most one answer at a time) and each waiter by its request's timeout.
 */
export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiters: Waiter<T>[] = [];
  private closedWith: Error | undefined;
  /** Items in all, lent or not. */
  readonly size: number;

  constructor(items: readonly T[]) {
    if (items.length === 0) throw new Error('a sequence pool needs at least one item');
    this.free = [...items];
    this.size = items.length;
  }

  /** Items not lent now. */
  get available(): number {
    return this.free.length;
  }

  /** Requests waiting for an item. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** An item as soon as one is free (in arrival order); rejects when `signal` aborts first or the pool closes. */
  acquire(signal?: AbortSignal): Promise<Lease<T>> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.free.shift();
    if (item !== undefined) return Promise.resolve(this.lease(item));
    return new Promise<Lease<T>>((resolve, reject) => {
      const waiter: Waiter<T> = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Fails every waiting request with `reason`, and every later `acquire`. Lent items stay lent. */
  close(reason: Error): void {
    this.closedWith = reason;
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(reason);
    }
  }

  private lease(item: T): Lease<T> {
    let released = false;
    return {
      item,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(item);
      },
    };
  }

  private giveBack(item: T): void {
    const next = this.waiters.shift();
    if (next === undefined) {
      this.free.push(item);
      return;
    }
    next.signal?.removeEventListener('abort', next.onAbort);
    next.resolve(this.lease(item));
  }
}
