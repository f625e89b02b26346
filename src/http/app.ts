import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/store.js';
import type { Area } from './areas.js';
import { accessLog } from './middleware/access-log.js';
import { adminAuth } from './middleware/admin-auth.js';
import { errorHandler } from './middleware/errors.js';
import { requestId } from './middleware/request-id.js';
import { buildOpenApi } from './openapi.js';
import { mountRoutes } from './route.js';
import { adminAreas } from './routes/admin.js';
import { healthRoutes } from './routes/health/health.routes.js';

export interface AppDeps {
  config: Config & { adminApiKey: string };
  store: Store;
  logger: Logger;
  registry: ProviderRegistry;
  metrics: Metrics;
}

export interface ParleyApp {
  app: Koa;
  areas: Area[];
}

/**
 * Builds the HTTP app without listening, so tests drive it in-process. Middleware order:
 * request id → access log → error handler → body parser → routes.
 */
export function createApp(deps: AppDeps): ParleyApp {
  const { config, logger } = deps;
  const app = new Koa({ proxy: config.trustProxy });
  app.silent = true; // the error handler logs; Koa's default stderr printing would duplicate it

  const areas: Area[] = [{ prefix: '', admin: false, routes: healthRoutes(deps) }, ...adminAreas(deps)];
  const openapi = buildOpenApi(areas);

  app.use(requestId());
  app.use(accessLog(logger));
  app.use(errorHandler(logger));
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: config.jsonLimitBytes,
      encoding: 'utf-8',
      onError: (err) => {
        throw err;
      },
    }),
  );

  const root = new Router();
  root.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  for (const area of areas) {
    const router = new Router({ prefix: area.prefix || undefined });
    if (area.admin) router.use(adminAuth(config.adminApiKey));
    mountRoutes(router, area.routes);
    root.use(router.routes());
  }
  app.use(root.routes());
  app.use(root.allowedMethods({ throw: true }));
  return { app, areas };
}
