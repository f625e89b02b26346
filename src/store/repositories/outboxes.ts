import type { Redis } from '../redis.js';

/**
 * The transactional outboxes (Redis lists a record's write appends its entry to, in the same
 * MULTI or script): read from the head by a relay, removed once their jobs are in place.
 */
export class OutboxRepository {
  constructor(private readonly redis: Redis) {}

  /** The first `count` entries of the outbox at `key`, as written (JSON text). */
  peek(key: string, count: number): Promise<string[]> {
    return this.redis.lRange(key, 0, count - 1);
  }

  /** Removes each of `entries` once (the first equal one), atomically. */
  async remove(key: string, entries: readonly string[]): Promise<void> {
    const multi = this.redis.multi();
    for (const text of entries) multi.lRem(key, 1, text);
    await multi.exec();
  }

  /** Entries waiting in the outbox at `key`. */
  length(key: string): Promise<number> {
    return this.redis.lLen(key);
  }
}
