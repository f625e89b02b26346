import type { Middleware } from 'koa';

const exposed = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'];

/**
 * CORS for `/sdk/v1/*`, so web pages on any origin can use the client SDK: SDK requests are
 * authenticated by the agent token in the body, never by cookies, so any origin may call them
 * (`Access-Control-Allow-Origin: *`, no credentials). A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204 here; everything else goes on as before.
 */
export function sdkCors(): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/sdk/')) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST');
      ctx.set('Access-Control-Allow-Headers', 'Content-Type');
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', exposed.join(', '));
    return next();
  };
}
