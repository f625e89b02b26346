import type { Middleware } from 'koa';
import type { OperatorMetrics } from '../../metrics/operator-metrics.js';

/**
 * Observes every request's duration by method, matched route pattern and final status (outside the
 * error handler, so errors count with the status the client got). Paths no route matched share
 * the route label `unmatched`, so scanners cannot blow up the series count.
 */
export function requestMetrics(metrics: OperatorMetrics): Middleware {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx['_matchedRoute'] as string | undefined) ?? 'unmatched';
      metrics.httpRequest(ctx.method, route, ctx.status, (performance.now() - start) / 1000);
    }
  };
}
