import type { RateLimitRepository } from '../store/repositories/rate-limits.js';

export interface RateLimitOptions {
  /** Sustained requests per minute (refill rate): PARLEY_RATE_LIMIT_RPM. */
  rpm: number;
  /** Bucket capacity: PARLEY_RATE_LIMIT_BURST. */
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the bucket is full again. */
  resetAt: number;
  /** Seconds to wait before one request is allowed again (0 when allowed). */
  retryAfterS: number;
}

/** A token bucket per key, held in Redis and updated atomically, so it holds across replicas. */
export class TokenBucket {
  constructor(
    private readonly buckets: RateLimitRepository,
    private readonly options: RateLimitOptions,
  ) {}

  async take(bucket: string): Promise<RateDecision> {
    const { allowed, remaining, untilFullMs, untilNextMs } = await this.buckets.take(
      bucket,
      this.options.burst,
      this.options.rpm,
    );
    return {
      allowed,
      limit: this.options.rpm,
      remaining,
      resetAt: Math.ceil((Date.now() + untilFullMs) / 1000),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil(untilNextMs / 1000)),
    };
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetAt),
  };
  if (!d.allowed) headers['Retry-After'] = String(d.retryAfterS);
  return headers;
}
