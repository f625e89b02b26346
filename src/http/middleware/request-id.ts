import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a sane incoming X-Request-Id or makes one; every response carries it. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = acceptable.test(incoming) ? incoming : 'req_' + randomBytes(12).toString('base64url');
    ctx.state['requestId'] = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
