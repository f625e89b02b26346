import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { payloadTooLarge } from '../body-errors.js';

/** Methods the JSON body parser reads a body for (its own default); others skip it without a call. */
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH']);

/** A declared Content-Length over the limit, whatever the Content-Encoding. */
function declaredTooLarge(ctx: Context, limit: number): boolean {
  const declared = ctx.get('Content-Length');
  return declared !== '' && Number(declared) > limit;
}

/**
 * Parses JSON bodies of POST/PUT/PATCH (gzip, deflate or br encoded, or not) into
 * `ctx.request.body`, within `limit` bytes both as sent and as decoded. A declared Content-Length
 * over the limit is refused before a byte is read (413 and the connection closed, so a client
 * announcing 1 TB and sending a few bytes is not waited on); every other failure becomes a 4xx in
 * the error handler (see body-errors.ts). For SDK paths the failure is kept in
 * `ctx.state.bodyError` for the SDK gate to throw after the rate limiter.
 */
export function jsonBody(limit: number): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    encoding: 'utf-8',
    onError: (err, ctx) => defer(ctx, err),
  });
  return (ctx, next) => {
    if (!methodsWithBody.has(ctx.method)) return next();
    if (ctx.is('json', '+json') !== false && declaredTooLarge(ctx, limit)) {
      defer(ctx, payloadTooLarge(limit));
      return next();
    }
    return parse(ctx, next);
  };
}

function defer(ctx: Context, err: unknown): void {
  // An SDK request with a broken body still passes the rate limiter; sdkGate rethrows it.
  if (!ctx.path.startsWith('/sdk/')) throw err;
  ctx.state['bodyError'] = err;
}
