import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthorizedError } from '../../errors.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Checks `X-API-Key` against the admin key in constant time (digests hide the length too). */
export function adminAuth(adminApiKey: string): Middleware {
  const expected = digest(adminApiKey);
  return async (ctx, next) => {
    const given = ctx.get('X-API-Key');
    if (given === '' || !timingSafeEqual(digest(given), expected)) {
      throw new UnauthorizedError(given === '' ? 'missing X-API-Key header' : 'invalid X-API-Key');
    }
    await next();
  };
}
