import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/** One structured line per request, after the response is decided (errors included). */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const level = ctx.status >= 500 ? 'error' : ctx.path.startsWith('/health') ? 'debug' : 'info';
      // Skip building the line when the level is off (LOG_LEVEL=silent, or debug lines at info).
      if (logger.isLevelEnabled(level)) {
        logger[level](
          {
            request_id: ctx.state['requestId'] as string,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            ms: Math.round((performance.now() - start) * 100) / 100,
          },
          'request',
        );
      }
    }
  };
}
