import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/** One structured line per request, after the response is decided (errors included). */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const fields = {
        request_id: ctx.state['requestId'] as string,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round((performance.now() - start) * 100) / 100,
      };
      if (ctx.status >= 500) logger.error(fields, 'request');
      else if (ctx.path.startsWith('/health')) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    }
  };
}
