import Router from '@koa/router';
import type { Recordings } from '../call-recordings/recordings.js';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { AgentTestRunner } from '../agent-tests/test-runner.js';
import type { ProviderDemand } from '../agents/provider-demand.js';
import type { AgentReadiness } from '../agents/readiness.js';
import type { ChatService } from '../chat/chat-service.js';
import type { Config } from '../config/config.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Metrics } from '../metrics/process-metrics.js';
import type { RagService } from '../rag/rag-service.js';
import type { TokenBucket } from '../ratelimit/token-bucket.js';
import type { LivekitPlane } from '../realtime/livekit/livekit-plane.js';
import type { VoiceSessions } from '../realtime/session-grants.js';
import type { CallSessions } from '../telephony/call-sessions.js';
import type { Store } from '../store/store.js';
import type { SessionRecorder } from '../session-writes/turn-recorder.js';
import type { Area } from './areas.js';
import { dispatchRoutes } from './dispatch.js';
import { accessLog } from './middleware/access-log.js';
import { adminAuth } from './middleware/admin-auth.js';
import { errorHandler } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { requestId } from './middleware/request-id.js';
import { requestMetrics } from './middleware/request-metrics.js';
import { sdkCors } from './middleware/sdk-cors.js';
import { buildOpenApi, openApiRoute } from './openapi.js';
import { mountRoutes } from './route.js';
import { adminAreas } from './routes/admin.js';
import { clientRoutes } from './routes/client/client.routes.js';
import { healthRoutes } from './routes/health/health.routes.js';
import { panelMiddleware } from './routes/panel/panel.js';
import { sdkArea } from './routes/sdk/sdk.area.js';
import { telephonyArea } from './routes/telephony/telephony.area.js';

export interface AppDeps {
  config: Config & { adminApiKey: string };
  store: Store;
  logger: Logger;
  registry: ProviderRegistry;
  metrics: Metrics;
  services: AppServices;
}

/**
 * The domain services the routes call: those src/services.ts builds, narrowed to what HTTP uses
 * (http/ does not import the composition root).
 */
export interface AppServices {
  rateLimit: TokenBucket;
  recorder: SessionRecorder;
  chat: ChatService;
  voice: VoiceSessions;
  calls: CallSessions;
  readiness: AgentReadiness;
  demand: ProviderDemand;
  rag: RagService;
  livekit: LivekitPlane;
  recordings: Recordings;
  agentTests: AgentTestRunner;
}

export interface ParleyApp {
  app: Koa;
  areas: Area[];
  /** The one router every area's routes are mounted on; its `stack` is the list of served routes. */
  router: Router;
}

/**
 * Builds the HTTP app without listening, so tests drive it in-process. Middleware order:
 * request id → request metrics → access log → SDK CORS → error handler → body parser (POST/PUT/PATCH) → the matched route (area
 * middleware → validation → handler) → for what no route matched, the router's 404/405/501.
 */
export function createApp(deps: AppDeps): ParleyApp {
  const { config, logger } = deps;
  const app = new Koa({ proxy: config.trustProxy });
  app.silent = true; // the error handler logs; Koa's default stderr printing would duplicate it

  const areas: Area[] = [
    { prefix: '', admin: false, routes: [...healthRoutes(deps), openApiRoute(() => openapi), ...clientRoutes()] },
    ...adminAreas(deps),
    sdkArea(deps),
    telephonyArea(deps),
  ];
  const openapi = buildOpenApi(areas);

  app.use(requestId());
  app.use(requestMetrics(deps.metrics.operator));
  app.use(accessLog(logger));
  app.use(sdkCors());
  app.use(errorHandler(logger));
  app.use(jsonBody(config.jsonLimitBytes));

  // One flat router: each route carries its area's middleware (admin auth, SDK gate), so auth runs
  // only for requests a route matched — an unknown path is 404 and a wrong method 405, key or not.
  const router = new Router();
  const auth = adminAuth(config.adminApiKey);
  for (const area of areas) {
    const middleware = [...(area.admin ? [auth] : []), ...(area.middleware ?? [])];
    mountRoutes(router, area.routes, { prefix: area.prefix, middleware });
  }
  app.use(dispatchRoutes(router));
  // The /home admin panel: static files, not API operations (so not on the router or in /openapi.json).
  app.use(panelMiddleware({ publicUrl: config.publicUrl }));
  // Only what no route matched gets here: 404, or 405/501 with an Allow header (the error handler
  // gives them the error shape).
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, areas, router };
}
