import { ProviderDemand } from '../../../agents/provider-demand.js';
import { AppError } from '../../../errors/app-errors.js';
import { isAdminKey } from '../../middleware/admin-auth.js';
import { ClusterMetricsUnavailable } from '../../../metrics/cluster-metrics.js';
import { version } from '../../../project/version.js';
import type { AppDeps } from '../../app.js';
import { defineRoute, type RouteDef } from '../../route.js';
import {
  healthSchema,
  livenessSchema,
  metricsJsonSchema,
  providersHealthSchema,
  readinessSchema,
} from './health.schema.js';

const tag = 'Health';
/** Probes must see the live answer, never a cached one. */
const noStore = { 'Cache-Control': 'no-store' };
const prometheusType = 'text/plain; version=0.0.4';

/** Public health endpoints (no authentication): /health, /ready, /live, /providers, /metrics. */
export function healthRoutes({ metrics, registry, services, config }: AppDeps): RouteDef[] {
  const admin = isAdminKey(config.adminApiKey);
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'health',
      summary: 'Basic health check: the process answers',
      tag,
      responses: { 200: { description: 'Up', schema: healthSchema } },
      handler: () => {
        const recordings = services.recordings.health();
        return {
          headers: noStore,
          body: {
            status: 'ok',
            version,
            uptime_s: metrics.uptimeSeconds(),
            telephony: { twilio: config.twilio.authToken === undefined ? 'not_configured' : 'configured' },
            ...(recordings.store === 's3' ? { recordings } : {}),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/health/ready',
      operationId: 'healthReady',
      summary: 'Readiness: Redis answers a PING within 1 s; 503 `not_ready` while it does not',
      tag,
      errors: [503],
      responses: { 200: { description: 'Ready to serve', schema: readinessSchema } },
      handler: async () => {
        const redis = await metrics.probeRedis();
        if (!redis.ok) {
          throw new AppError(
            503,
            'not_ready',
            'redis is not reachable',
            { redis: { ok: false, latency_ms: null, detail: redis.problem } },
            noStore,
          );
        }
        return { headers: noStore, body: { status: 'ready', redis: { ok: true, latency_ms: redis.latency_ms } } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/health/live',
      operationId: 'healthLive',
      summary: 'Liveness: the event loop runs (touches nothing else)',
      tag,
      responses: { 200: { description: 'Alive', schema: livenessSchema } },
      handler: () => ({ headers: noStore, body: { status: 'alive' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/health/providers',
      operationId: 'healthProviders',
      summary:
        'Probe every provider (cached for a few seconds), with the agents needing each (named for the admin key) and the built-in preset; `degraded` when a configured one fails or an agent needs one that cannot run here',
      tag,
      responses: { 200: { description: 'Provider status', schema: providersHealthSchema } },
      handler: async (ctx) => {
        const [checks, demand, builtIn] = await Promise.all([
          registry.check(),
          services.demand.byProvider(),
          registry.builtIn(),
        ]);
        const named = admin(ctx.get('X-API-Key'));
        const providers = checks.map((check) => {
          const d = demand.get(ProviderDemand.key(check.capability, check.provider));
          return {
            ...check,
            needed_by: { count: d?.count ?? 0, unserved: d?.unserved ?? 0, agents: named ? (d?.agents ?? []) : [] },
          };
        });
        const degraded = providers.some((p) => p.status === 'error' || p.needed_by.unserved > 0);
        return {
          headers: noStore,
          body: { status: degraded ? 'degraded' : 'ok', providers, built_in: builtIn.choices },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/health/metrics',
      operationId: 'healthMetrics',
      summary:
        'System metrics: JSON by default; the Prometheus text exposition (text/plain; version=0.0.4) when the Accept header prefers text/plain',
      tag,
      responses: {
        200: {
          description: 'Metrics (JSON shown; text/plain gives the Prometheus exposition)',
          schema: metricsJsonSchema,
        },
      },
      errors: [503],
      handler: async (ctx) => {
        ctx.vary('Accept');
        try {
          // The full media type, so Prometheus' own `text/plain;version=0.0.4;q=0.5` matches it.
          if (ctx.accepts('json', prometheusType) === prometheusType) {
            const { contentType, body } = await metrics.prometheus();
            return { headers: { ...noStore, 'Content-Type': contentType }, body };
          }
          return { headers: noStore, body: await metrics.json() };
        } catch (err) {
          if (!(err instanceof ClusterMetricsUnavailable)) throw err;
          throw new AppError(503, 'metrics_unavailable', err.message, undefined, { ...noStore, 'Retry-After': '1' });
        }
      },
    }),
  ];
}
