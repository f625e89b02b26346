import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsJsonSchema, providersHealthSchema } from '../../src/http/routes/health/health.schema.js';
import { version } from '../../src/project/version.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/** Requests `path` until `done` holds for the response, at most `attempts` times. */
async function pollUntil(
  p: TestParley,
  path: string,
  done: (res: TestResponse) => boolean,
  attempts = 200,
): Promise<TestResponse> {
  let last: TestResponse | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await p.request('GET', path, { apiKey: null });
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `${path} never reached the expected state; last answer ${last?.status} ${JSON.stringify(last?.body)}`,
  );
}

describe('health endpoints', () => {
  let redis: TestRedis;
  let p: TestParley;

  beforeAll(async () => {
    redis = await TestRedis.start();
    p = await startParley(redis);
  });
  afterAll(async () => {
    await p?.close();
    await redis?.close();
  });

  it('GET /health answers without credentials', async () => {
    const res = await p.request('GET', '/health', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version,
      uptime_s: expect.any(Number),
      telephony: { twilio: 'not_configured' },
    });
    expect(res.body.uptime_s).toBeGreaterThanOrEqual(0);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /health/live answers alive', async () => {
    const res = await p.request('GET', '/health/live', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'alive' });
  });

  it('GET /health/ready reports the Redis round trip', async () => {
    const res = await p.request('GET', '/health/ready', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', redis: { ok: true, latency_ms: expect.any(Number) } });
  });

  it('GET /health/metrics answers JSON by default', async () => {
    const res = await p.request('GET', '/health/metrics', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = metricsJsonSchema.strict().parse(res.body);
    expect(body.memory.rss_bytes).toBeGreaterThan(0);
    expect(body.memory.heap_used_bytes).toBeGreaterThan(0);
    expect(body.cpu.user_ms).toBeGreaterThan(0);
    expect(body.cpu.percent).toBeGreaterThanOrEqual(0);
    expect(body.event_loop.lag_max_ms).toBeGreaterThanOrEqual(body.event_loop.lag_p50_ms);
    expect(body.redis.ok).toBe(true);
    expect(body.redis.latency_ms).toEqual(expect.any(Number));
    expect(body.sessions.live).toBe(0);
  });

  it('counts sessions running in a process (live leases), not active records or expired leases', async () => {
    const { redis: client, store } = p.parley;
    const { keys } = store;
    const now = Date.now();
    await client.zAdd(keys.sessionsActive(), [{ score: now, value: 'ses_health_stuck' }]);
    await client.zAdd(keys.sessionLeases(), [
      { score: now + 60_000, value: 'ses_health_a' },
      { score: now + 60_000, value: 'ses_health_b' },
      { score: now - 1_000, value: 'ses_health_dead' },
      { score: now + 60_000, value: 'ses_health_reaping' },
    ]);
    await client.hSet(keys.sessionLeaseHolders(), {
      ses_health_a: 'host/1/aa',
      ses_health_b: 'host/2/bb',
      ses_health_dead: 'host/3/cc',
      ses_health_reaping: 'reaping:owner_lost',
    });
    try {
      const json = await p.request('GET', '/health/metrics', { apiKey: null });
      expect(json.body.sessions.live).toBe(2);
      const text = await p.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: 'text/plain' } });
      expect(text.body).toMatch(/^parley_live_sessions 2$/m);
    } finally {
      await client.del([keys.sessionsActive(), keys.sessionLeases(), keys.sessionLeaseHolders()]);
    }
  });

  it('GET /health/metrics answers the Prometheus exposition when Accept prefers text/plain', async () => {
    const res = await p.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    const text = res.body as string;
    expect(text).toContain('# TYPE parley_live_sessions gauge');
    expect(text).toMatch(/^parley_live_sessions 0$/m);
    expect(text).toMatch(/^parley_redis_latency_ms \d+(\.\d+)?$/m);
    expect(text).toMatch(/^parley_redis_up 1$/m);
    expect(text).toMatch(/^parley_uptime_seconds \d+(\.\d+)?$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');

    // What Prometheus itself sends.
    const scrape = await p.request('GET', '/health/metrics', {
      apiKey: null,
      headers: { Accept: 'application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' },
    });
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    const anything = await p.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: '*/*' } });
    expect(anything.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('GET /health/providers answers 200 with a check per catalog provider', async () => {
    const res = await p.request('GET', '/health/providers', { apiKey: null });
    expect(res.status).toBe(200);
    const body = providersHealthSchema.parse(res.body);
    expect(body.providers.length).toBeGreaterThan(0);
  });

  it('documents every health route in /openapi.json', async () => {
    const spec = await p.request('GET', '/openapi.json', { apiKey: null });
    for (const path of ['/health', '/health/ready', '/health/live', '/health/providers', '/health/metrics']) {
      expect(spec.body.paths[path]?.get?.responses?.['200']).toBeDefined();
      expect(spec.body.paths[path].get.security).toBeUndefined();
    }
    expect(spec.body.paths['/health/ready'].get.responses['503']).toBeDefined();
  });
});

describe('readiness across a Redis outage', () => {
  let redis: TestRedis;
  let p: TestParley;

  beforeAll(async () => {
    redis = await TestRedis.start();
    p = await startParley(redis);
  });
  afterAll(async () => {
    await p?.close();
    await redis?.close();
  });

  it('answers 503 not_ready while Redis is down and 200 again once it is back, without a restart', async () => {
    expect((await p.request('GET', '/health/ready', { apiKey: null })).status).toBe(200);

    await redis.stopServer();
    const down = await pollUntil(p, '/health/ready', (res) => res.status !== 200);
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({
      code: 'not_ready',
      request_id: expect.any(String),
      details: { redis: { ok: false, latency_ms: null } },
    });

    // Liveness and the basic check do not depend on Redis; metrics report it down instead of failing.
    expect((await p.request('GET', '/health/live', { apiKey: null })).status).toBe(200);
    expect((await p.request('GET', '/health', { apiKey: null })).status).toBe(200);
    const metrics = await p.request('GET', '/health/metrics', { apiKey: null });
    expect(metrics.status).toBe(200);
    expect(metrics.body.redis).toEqual({ ok: false, latency_ms: null });
    expect(metrics.body.sessions.live).toBeNull();
    const text = await p.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: 'text/plain' } });
    expect(text.status).toBe(200);
    expect(text.body).toMatch(/^parley_redis_up 0$/m);

    await redis.startServer();
    const up = await pollUntil(p, '/health/ready', (res) => res.status === 200);
    expect(up.body).toEqual({ status: 'ready', redis: { ok: true, latency_ms: expect.any(Number) } });

    // The event outbox has its own (BullMQ) connections; closing Parley while they are still
    // reconnecting hangs, so let them come back before afterAll closes it.
    await p.parley.services.outbox.backlog();
  });
});
