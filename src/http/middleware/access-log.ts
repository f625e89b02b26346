import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * The level of a request's line: a real 500 at error (the error handler has logged its stack), other
 * 5xx (501, 502, 503 store_unavailable / voice_unavailable) at warn, health checks at debug, the rest
 * (4xx included) at info.
 */
function levelOf(ctx: Context): 'error' | 'warn' | 'info' | 'debug' {
  if (ctx.status === 500) return 'error';
  if (ctx.status > 500) return 'warn';
  return ctx.path.startsWith('/health') ? 'debug' : 'info';
}

/** One structured line per request, after the response is decided (errors included, with their code). */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const level = levelOf(ctx);
      // Skip building the line when the level is off (LOG_LEVEL=silent, or debug lines at info).
      if (logger.isLevelEnabled(level)) {
        const code = ctx.state['errorCode'] as string | undefined;
        const cause = ctx.state['errorCause'] as string | undefined;
        logger[level](
          {
            request_id: ctx.state['requestId'] as string,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            ms: Math.round((performance.now() - start) * 100) / 100,
            ...(code === undefined ? {} : { code }),
            ...(cause === undefined ? {} : { cause }),
          },
          'request',
        );
      }
    }
  };
}
