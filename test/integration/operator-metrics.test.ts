import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { VoiceConnection } from '../../src/client/voice-connection.js';
import { metricsJsonSchema } from '../../src/http/routes/health/health.schema.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Operator metrics through HTTP: what happens (requests, webhook calls, event deliveries, turns,
 * voice sessions) shows up in /health/metrics, as Prometheus series and as the JSON figures the
 * panel's overview reads, both from the same histograms.
 */

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let events: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start((req) =>
    (req.json as { data: { transcript: string } }).data.transcript === 'fail please'
      ? { status: 500, body: { oops: true } }
      : { body: { response: 'fine' } },
  );
  events = await HttpReceiver.start((req) =>
    (req.json as { type: string }).type === 'llm_response' ? { status: 503 } : { status: 200 },
  );
  p = await startParley(redis, { PARLEY_EVENT_RETRY_BASE_MS: '20' });
});

afterAll(async () => {
  await p?.close();
  await Promise.all([webhook?.close(), events?.close()]);
  await redis?.close();
});

const prometheus = async () =>
  (await p.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: 'text/plain' } })).body as string;
const json = async () =>
  metricsJsonSchema.strict().parse((await p.request('GET', '/health/metrics', { apiKey: null })).body);

/** The value of one sample line, e.g. `name{a="b"}`; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function agent(extra: Record<string, unknown> = {}) {
  const res = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'metrics', mode: 'passthrough', webhook_url: webhook.url, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

describe('operator metrics in /health/metrics', () => {
  it('times HTTP requests by method, route pattern and status; unknown paths share one label', async () => {
    const before = await prometheus();
    const key = (route: string, status: number) =>
      `parley_http_request_duration_seconds_count{method="GET",route="${route}",status="${status}"}`;
    await p.request('GET', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000');
    await p.request('GET', '/admin/v1/agents/agt_01jd3n6v8m0000000000000001');
    await p.request('GET', '/no/such/path/123');
    await p.request('GET', '/admin/v1/agents');
    const after = await prometheus();
    expect(sample(after, key('/admin/v1/agents/:id', 404)) - sample(before, key('/admin/v1/agents/:id', 404))).toBe(2);
    expect(sample(after, key('unmatched', 404)) - sample(before, key('unmatched', 404))).toBe(1);
    expect(sample(after, key('/admin/v1/agents', 200)) - sample(before, key('/admin/v1/agents', 200))).toBe(1);
    expect(after).toContain('# TYPE parley_http_request_duration_seconds histogram');
    expect(after).not.toContain('agt_01jd3n6v8m');

    const body = await json();
    expect(body.http.requests).toBeGreaterThanOrEqual(4);
    expect(body.http.by_status_class['4xx']).toBeGreaterThanOrEqual(3);
    expect(body.http.latency.p50_ms).toBeGreaterThan(0);
    expect(body.http.latency.p90_ms).toBeGreaterThanOrEqual(body.http.latency.p50_ms!);
  });

  it('counts webhook outcomes and event deliveries (delivered, retried, failed)', async () => {
    const a = await agent({ events_url: events.url });
    const chat = (message: string) =>
      p.request('POST', '/sdk/v1/chat', { apiKey: null, body: { agent_token: a.agent_token, message } });
    const first = await chat('hello');
    expect(first.status).toBe(200);
    const second = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: a.agent_token, message: 'fail please', session_id: first.body.session_id },
    });
    expect(second.status).toBe(502);
    const text = await prometheus();
    expect(sample(text, 'parley_webhook_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(sample(text, 'parley_webhook_duration_seconds_count{outcome="http_error"}')).toBe(1);

    // session_start is delivered; llm_response is refused (503) on each of its 4 tries.
    const failed = 'parley_event_deliveries_total{type="llm_response",outcome="failed"}';
    const after = await eventually(prometheus, (t) => sample(t, failed) === 1, { what: 'llm_response to fail' });
    expect(sample(after, 'parley_event_deliveries_total{type="session_start",outcome="delivered"}')).toBe(1);
    expect(sample(after, 'parley_event_deliveries_total{type="llm_response",outcome="retried"}')).toBe(3);

    const body = await json();
    expect(body.webhooks.by_outcome).toEqual({ ok: 1, http_error: 1 });
    expect(body.webhooks.total).toBe(2);
    expect(body.events).toEqual({ delivered: 1, retried: 3, failed: 1 });
  });

  it('observes turn latencies where the turn is recorded, and serves p50/p90 from the same buckets', async () => {
    // Earlier tests' chat turns count too (every turn goes through the recorder): compare with before.
    const before = await json();
    const a = await agent();
    const grant = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: a.agent_token, transport: 'websocket' },
    });
    const { store, services } = p.parley;
    const stored = (await store.agents.getStored(a.id))!;
    const session = (await store.sessions.get(grant.body.session_id))!;
    const message = await services.recorder.answered(stored, session, {
      channel: 'voice',
      turn: 1,
      transcript: 'hi',
      text: 'hello there',
      status: 'complete',
      source: 'webhook',
      timings: { endpointing_ms: 120, stt_ms: 300, response_ms: 450 },
    });
    await services.recorder.played(stored, session, message.id, {
      turn: 1,
      interrupted: false,
      spokenText: 'hello there',
      durationMs: 900,
      timings: { endpointing_ms: 120, stt_ms: 300, response_ms: 450, first_audio_ms: 200, end_to_end_ms: 1070 },
    });
    const text = await prometheus();
    const bucket = (stage: string, le: string) =>
      sample(text, `parley_turn_latency_seconds_bucket{le="${le}",stage="${stage}",channel="voice"}`);
    expect(bucket('end_to_end', '1')).toBe(0);
    expect(bucket('end_to_end', '1.5')).toBe(1);
    expect(bucket('stt', '0.3')).toBe(1);
    expect(bucket('stt', '0.2')).toBe(0);
    for (const stage of ['endpointing', 'stt', 'response', 'first_audio', 'end_to_end'])
      expect(sample(text, `parley_turn_latency_seconds_count{stage="${stage}",channel="voice"}`)).toBe(1);
    expect(sample(text, 'parley_turns_total{channel="voice",status="complete"}')).toBe(1);

    const body = await json();
    expect(body.turns.total).toBe(before.turns.total + 1);
    expect(body.turns.by_status['complete']).toBe((before.turns.by_status['complete'] ?? 0) + 1);
    // One observation of 1.07 s in the (1, 1.5] bucket: Prometheus' interpolation puts p50 at 1.25 s.
    expect(body.turns.latency.end_to_end).toEqual({ count: 1, p50_ms: 1250, p90_ms: 1450 });
    expect(body.turns.latency.stt.count).toBe(1);
  });

  it('counts live voice sessions of this process by transport', async () => {
    const a = await agent();
    const connection = await VoiceConnection.connect({ baseUrl: p.url, agentToken: a.agent_token, WebSocket });
    const live = await prometheus();
    expect(sample(live, 'parley_voice_sessions{transport="websocket"}')).toBe(1);
    expect((await json()).voice_sessions.by_transport).toEqual({ websocket: 1 });
    await connection.end();
    const after = await eventually(json, (b) => Object.keys(b.voice_sessions.by_transport).length === 0, {
      what: 'the session to leave the gauge',
    });
    expect(after.voice_sessions.by_transport).toEqual({});
  });
});
