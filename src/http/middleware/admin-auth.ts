import * as crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthorizedError } from '../../errors/app-errors.js';

/**
 * SHA-256 as base64. One-shot `crypto.hash` (Node ≥ 20.12) into a string is several times cheaper
 * per request than a Hash object or a Buffer result.
 */
const digest: (value: string) => string =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'base64')
    : (value) => crypto.createHash('sha256').update(value, 'utf8').digest('base64');

/** Constant-time equality of two digests (always the same length): no early exit on a mismatch. */
function sameDigest(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Whether a request's `X-API-Key` is the admin key, in constant time (for public routes that say more to it). */
export function isAdminKey(adminApiKey: string): (given: string) => boolean {
  const expected = digest(adminApiKey);
  return (given) => given !== '' && sameDigest(digest(given), expected);
}

/** Checks `X-API-Key` against the admin key in constant time (digests hide the length too). */
export function adminAuth(adminApiKey: string): Middleware {
  const admin = isAdminKey(adminApiKey);
  return (ctx, next) => {
    const given = ctx.get('X-API-Key');
    if (!admin(given)) {
      throw new UnauthorizedError(given === '' ? 'missing X-API-Key header' : 'invalid X-API-Key');
    }
    return next();
  };
}
