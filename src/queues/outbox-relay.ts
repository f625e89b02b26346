import type { Logger } from 'pino';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { Store } from '../store/store.js';

export interface OutboxRelayOptions<T> {
  store: Store;
  logger: Logger;
  /** The outbox list (the event outbox; the post-call analysis requests have their own). */
  key: string;
  /** What the relay's log lines call it (`event outbox`, `analysis outbox`). */
  name: string;
  /** Adds jobs, one per entry, with the entry's own id as job id (a second add of an id is a no-op). */
  enqueue: (entries: T[]) => Promise<void>;
  /** How often the outbox is read when nothing in this process woke the relay (other instances, a crashed one). */
  intervalMs: number;
  /** Entries moved per pass. */
  batch?: number;
}

/**
 * Moves entries from a transactional outbox (a Redis list the record scripts append to) into its
 * BullMQ queue (durable-queue.ts). An entry leaves the outbox only after its job exists, and the job id is
 * the entry's own id, so a relay killed between the two steps, or two instances relaying the same entry,
 * queue it once (at worst, once more after its job was completed and removed: at-least-once).
 * Runs at start (picking up what a killed process left), when woken by a write in this process,
 * and every `intervalMs`.
 */
export class OutboxRelay<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private failing = false;

  constructor(private readonly o: OutboxRelayOptions<T>) {}

  start(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setInterval(() => this.wake(), this.o.intervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Runs a pass now (or right after the one in progress). */
  wake(): void {
    if (this.closed || this.timer === undefined) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /**
   * Stops the relay after the pass in progress and one last pass (for entries written meanwhile);
   * what it cannot move (Redis down) stays in the outbox for the next start.
   */
  async close(graceMs = 5_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    if (this.timer === undefined) return;
    // BullMQ's connection waits for Redis rather than failing: a pass caught in an outage is left
    // behind after the grace period (its entries stay in the outbox, relayed by the next start).
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([(this.running ?? Promise.resolve()).then(() => this.drain()), grace]);
    clearTimeout(timer);
  }

  /** Relays until the outbox is empty; returns how many entries it moved. */
  async relayAll(): Promise<number> {
    let moved = 0;
    for (;;) {
      const n = await this.relayBatch();
      moved += n;
      if (n === 0) return moved;
    }
  }

  private async drain(): Promise<void> {
    try {
      await this.relayAll();
      if (this.failing) this.o.logger.info(`${this.o.name} relay resumed`);
      this.failing = false;
    } catch (err) {
      // Entries stay in the outbox; the next pass (timer or wake) tries again.
      // a Redis outage is expected operation: its cause, not a stack (as the HTTP layer logs it)
      const detail = isStoreUnavailable(err) ? { cause: (err as Error).message } : { err };
      if (!this.failing) this.o.logger.warn(detail, `${this.o.name} relay failed; retrying`);
      this.failing = true;
    }
  }

  private async relayBatch(): Promise<number> {
    const { outboxes } = this.o.store;
    const key = this.o.key;
    const raw = await outboxes.peek(key, this.o.batch ?? 100);
    if (raw.length === 0) return 0;
    const entries: T[] = [];
    for (const text of raw) {
      try {
        entries.push(JSON.parse(text) as T);
      } catch (err) {
        this.o.logger.error({ err, entry: text.slice(0, 200) }, `unreadable ${this.o.name} entry dropped`);
      }
    }
    if (entries.length > 0) await this.o.enqueue(entries);
    // Only now, with every job in place, do the entries leave the outbox (each the first equal one).
    await outboxes.remove(key, raw);
    return raw.length;
  }
}
