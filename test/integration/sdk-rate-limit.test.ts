import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';

/**
 * SPEC §8 / DESIGN "Rate limit": a token bucket in Redis per agent (per client address for unknown
 * tokens) on every SDK endpoint, X-RateLimit-* headers on every SDK response, 429 + Retry-After.
 */

let redis: TestRedis;
let webhook: HttpReceiver;
const started: TestParley[] = [];

/** A passthrough agent answering from the test webhook. */
function limitedAgent(on: TestParley = p, settings: Record<string, unknown> = {}): Promise<Agent> {
  return createAgent(on, { name: 'Limited', mode: 'passthrough', webhook_url: webhook.url, ...settings });
}

async function parley(rpm: number, burst: number): Promise<TestParley> {
  const p = await startParley(redis, { PARLEY_RATE_LIMIT_RPM: String(rpm), PARLEY_RATE_LIMIT_BURST: String(burst) });
  started.push(p);
  return p;
}

/** Burst 3 at 60 per minute: the SPEC's numbers scaled down. */
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'ok' } }));
  p = await parley(60, 3);
});
afterAll(async () => {
  await Promise.allSettled(started.map((s) => s.close()));
  await webhook?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  webhook.requests.length = 0;
  webhook.respond = () => ({ body: { response: 'ok' } });
});

function chat(on: TestParley, token: string, extra: Record<string, unknown> = {}): Promise<TestResponse> {
  return on.request('POST', '/sdk/v1/chat', { body: { agent_token: token, message: 'hi', ...extra }, apiKey: null });
}

function limitHeaders(res: TestResponse): {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: string | null;
} {
  const int = (name: string) => {
    const raw = res.headers.get(name);
    expect(raw, `${name} on a ${res.status}`).toMatch(/^\d+$/);
    return Number(raw);
  };
  return {
    limit: int('x-ratelimit-limit'),
    remaining: int('x-ratelimit-remaining'),
    reset: int('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('per agent token bucket', () => {
  it('allows the burst with decreasing X-RateLimit-Remaining, then 429 with Retry-After', async () => {
    const agent = await limitedAgent();
    const answers: TestResponse[] = [];
    for (let i = 0; i < 3; i++) answers.push(await chat(p, agent.agent_token));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const headers = answers.map(limitHeaders);
    expect(headers.map((h) => h.limit)).toEqual([60, 60, 60]);
    expect(headers.map((h) => h.remaining)).toEqual([2, 1, 0]);
    const nowS = Date.now() / 1000;
    for (const h of headers) {
      // Unix seconds when the bucket is full again: in the future, at most burst/rpm minutes away.
      expect(h.reset).toBeGreaterThan(nowS - 1);
      expect(h.reset).toBeLessThanOrEqual(Math.ceil(nowS) + 3 + 1);
      expect(h.retryAfter).toBeNull();
    }
    expect(headers[2]!.reset).toBeGreaterThan(nowS);

    const limited = await chat(p, agent.agent_token);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    const h = limitHeaders(limited);
    expect(h).toMatchObject({ limit: 60, remaining: 0 });
    expect(h.reset).toBeGreaterThan(nowS);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(webhook.requests).toHaveLength(3);
  });

  it('refills at rpm per minute: requests pass again after waiting', async () => {
    const fast = await parley(600, 3); // one token every 100 ms
    const agent = await limitedAgent(fast);
    let status = 200;
    while (status === 200) status = (await chat(fast, agent.agent_token)).status;
    expect(status).toBe(429);
    const again = await eventually(
      () => chat(fast, agent.agent_token),
      (r) => r.status !== 429,
      { what: 'a refilled token', intervalMs: 50 },
    );
    expect(again.status).toBe(200);
    expect(limitHeaders(again).limit).toBe(600);
  });

  it('buckets are per agent: one exhausted agent does not limit another', async () => {
    const a = await limitedAgent();
    const b = await limitedAgent();
    for (let i = 0; i < 3; i++) await chat(p, a.agent_token);
    expect((await chat(p, a.agent_token)).status).toBe(429);
    const other = await chat(p, b.agent_token);
    expect(other.status).toBe(200);
    expect(limitHeaders(other).remaining).toBe(2);
  });

  it('both SDK endpoints draw on the same bucket', async () => {
    const agent = await limitedAgent();
    for (let i = 0; i < 3; i++) expect((await chat(p, agent.agent_token)).status).toBe(200);
    const session = await p.request('POST', '/sdk/v1/session', {
      body: { agent_token: agent.agent_token },
      apiKey: null,
    });
    expect(session.status).toBe(429);
    expect(session.body.error.code).toBe('rate_limited');
  });

  it('a regenerated token keeps the agent’s bucket (the limit is per agent, not per token string)', async () => {
    const agent = await limitedAgent();
    for (let i = 0; i < 3; i++) await chat(p, agent.agent_token);
    const regenerated = await p.request('POST', `/admin/v1/agents/${agent.id}/regenerate-token`);
    expect((await chat(p, regenerated.body.agent_token)).status).toBe(429);
  });
});

describe('unknown tokens', () => {
  it('are limited per client address: a burst of bad tokens turns 401 into 429', async () => {
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await chat(p, `pat_guess_${i}`, { user_id: `u${i}` });
      statuses.push(res.status);
      remaining.push(limitHeaders(res).remaining);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(remaining).toEqual([2, 1, 0, 0, 0]);
    // X-Forwarded-For is not trusted by default, so it does not open a new bucket.
    const spoofed = await p.request('POST', '/sdk/v1/chat', {
      body: { agent_token: 'pat_guess_x', message: 'hi' },
      headers: { 'X-Forwarded-For': '203.0.113.9' },
      apiKey: null,
    });
    expect(spoofed.status).toBe(429);
    // A known agent is counted in its own bucket, not the address's.
    const agent = await limitedAgent();
    expect((await chat(p, agent.agent_token)).status).toBe(200);
  });

  it('requests without a token or with a body that is not JSON count against the address too', async () => {
    const noToken = await p.request('POST', '/sdk/v1/chat', { body: { message: 'hi' }, apiKey: null });
    expect(noToken.status).toBe(400);
    expect(limitHeaders(noToken).remaining).toBe(2);
    const garbage = await p.request('POST', '/sdk/v1/chat', {
      rawBody: '{oops',
      headers: { 'Content-Type': 'application/json' },
      apiKey: null,
    });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('invalid_json');
    expect(limitHeaders(garbage).remaining).toBe(1);
    const formEncoded = await p.request('POST', '/sdk/v1/session', {
      rawBody: 'a=b',
      headers: { 'Content-Type': 'text/plain' },
      apiKey: null,
    });
    expect(formEncoded.status).toBe(415);
    expect(limitHeaders(formEncoded).remaining).toBe(0);
    const limited = await p.request('POST', '/sdk/v1/chat', {
      rawBody: '{oops',
      headers: { 'Content-Type': 'application/json' },
      apiKey: null,
    });
    expect(limited.status).toBe(429);
  });
});

describe('across instances', () => {
  it('two Parley processes on one Redis share each bucket', async () => {
    // rpm 1: no refill during the test, so exactly `burst` requests pass in total.
    const one = await parley(1, 3);
    const two = await parley(1, 3);
    const agent = await limitedAgent(one);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await chat(i % 2 === 0 ? one : two, agent.agent_token)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
  });

  it('concurrent requests to both instances never exceed the burst', async () => {
    const one = await parley(1, 5);
    const two = await parley(1, 5);
    const agent = await limitedAgent(one);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? one : two, agent.agent_token)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
    expect(webhook.requests).toHaveLength(5);
  });
});

describe('headers on every SDK response', () => {
  it('2xx, 400, 401, 404, 415, 502 and 503 all carry X-RateLimit-*', async () => {
    const roomy = await parley(1000, 1000);
    const agent = await limitedAgent(roomy);
    webhook.respond = (req) =>
      (req.json as { data: { transcript: string } }).data.transcript === 'fail'
        ? { status: 500 }
        : { body: { response: 'ok' } };
    const responses: TestResponse[] = [
      await chat(roomy, agent.agent_token),
      await chat(roomy, agent.agent_token, { message: '' }),
      await roomy.request('POST', '/sdk/v1/chat', {
        rawBody: '[',
        headers: { 'Content-Type': 'application/json' },
        apiKey: null,
      }),
      await chat(roomy, 'pat_nope'),
      await chat(roomy, agent.agent_token, { session_id: 'ses_01jd3n6v8m0000000000000000' }),
      await roomy.request('POST', '/sdk/v1/chat', {
        rawBody: 'hi',
        headers: { 'Content-Type': 'text/plain' },
        apiKey: null,
      }),
      await chat(roomy, agent.agent_token, { message: 'fail' }),
      // LiveKit asked for on a server without it (no transport would get the WebSocket endpoint)
      await roomy.request('POST', '/sdk/v1/session', {
        body: { agent_token: agent.agent_token, transport: 'livekit' },
        apiKey: null,
      }),
      await roomy.request('POST', '/sdk/v1/session', { body: { agent_token: 'pat_nope' }, apiKey: null }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 400, 400, 401, 404, 415, 502, 503, 401]);
    for (const res of responses) {
      const h = limitHeaders(res);
      expect(h.limit).toBe(1000);
      expect(h.remaining).toBeGreaterThan(900);
      expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    }
  });
});
