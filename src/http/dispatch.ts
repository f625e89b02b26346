import type Router from '@koa/router';
import type { Middleware } from 'koa';

interface Entry {
  regexp: RegExp;
  layer: Router['stack'][number];
  handler: Middleware;
}

/**
 * Answers requests a route of `router` matches, with the router's own layers (same regexps, same
 * order, same decoded params) but without `router.routes()`'s per-request work: it tests every
 * layer, builds a middleware chain and composes it on each call. Here a request is tested against
 * the routes of its method only, and the first match answers (route handlers never call `next`).
 *
 * Requests no route matches go on to `next`: put `router.routes()` and `router.allowedMethods()`
 * after this for 404, 405 with `Allow`, and 501. Built from `router.stack` as it is when called, so
 * call it after every route is registered; routes only (no `router.use` layers).
 */
export function dispatchRoutes(router: Router): Middleware {
  const byMethod = new Map<string, Entry[]>();
  for (const layer of router.stack) {
    if (layer.methods.length === 0)
      throw new Error(`dispatchRoutes: router.use layers are not supported (${String(layer.path)})`);
    const stack = layer.stack as Middleware[];
    const handler = stack.length === 1 ? stack[0]! : chained(stack);
    for (const method of layer.methods) {
      const entries = byMethod.get(method) ?? [];
      entries.push({ regexp: layer.regexp, layer, handler });
      byMethod.set(method, entries);
    }
  }
  return (ctx, next) => {
    const entries = byMethod.get(ctx.method);
    if (entries !== undefined) {
      const path = ctx.path;
      for (const { regexp, layer, handler } of entries) {
        const match = regexp.exec(path);
        if (match !== null) {
          ctx['params'] = layer.params(path, match.slice(1));
          ctx['_matchedRoute'] = layer.path; // as @koa/router names it: the route pattern, for metrics
          return handler(ctx, next);
        }
      }
    }
    return next();
  };
}

/** The layer's middleware in order, the last one's `next` being the caller's. */
function chained(stack: Middleware[]): Middleware {
  return (ctx, next) => {
    const step = (i: number): Promise<unknown> =>
      i === stack.length ? next() : Promise.resolve(stack[i]!(ctx, () => step(i + 1)));
    return step(0);
  };
}
