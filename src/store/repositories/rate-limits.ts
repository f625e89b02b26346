import type { Keys } from '../keys.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const takeToken = new Script('take_token', { durable: false });

/** What one take did to a bucket (take_token.lua's reply). */
export interface TokenTake {
  allowed: boolean;
  /** Whole tokens left. */
  remaining: number;
  untilFullMs: number;
  /** 0 when a token is left. */
  untilNextMs: number;
}

/** Token buckets, one hash per bucket, updated atomically by Redis's clock so every replica sees one. */
export class RateLimitRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Takes one token from `bucket` (capacity `burst`, refilled at `rpm` per minute) if it has one. */
  async take(bucket: string, burst: number, rpm: number): Promise<TokenTake> {
    const reply = (await takeToken.run(this.redis, [this.keys.rateLimit(bucket)], [burst, rpm])) as number[];
    const [allowed, remaining, untilFullMs, untilNextMs] = reply as [number, number, number, number];
    return { allowed: allowed === 1, remaining, untilFullMs, untilNextMs };
  }
}
