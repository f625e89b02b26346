import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { ragEnv, waitForDocument } from './rag-helpers.js';

/**
 * Redis faults (issue 8): whether Redis refuses connections (killed), answers nothing (SIGSTOP) or
 * dies with commands in flight (ECONNRESET), every request that needs it answers 503
 * `store_unavailable` with Retry-After before the client's 5 s timeout, never 500, never a hang;
 * once Redis is back the same Parley serves again and its queues (event outbox, ingestion) resume.
 */

const clientTimeoutMs = 5_000;
const env = {
  ...ragEnv,
  PARLEY_EMBEDDING_WORKERS: '1',
  PARLEY_RATE_LIMIT_BURST: '100000',
  PARLEY_RATE_LIMIT_RPM: '1000000',
  PARLEY_EVENT_RETRY_BASE_MS: '50',
};

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let events: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'fine' } }));
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(redis, env);
});
afterAll(async () => {
  await p?.close();
  await webhook?.close();
  await events?.close();
  await redis?.close();
});

interface Call {
  method: string;
  path: string;
  /** A function makes a fresh body per request (documents must differ in content). */
  body?: unknown;
  apiKey?: null;
}

let uploads = 0;

/** Fresh records for one test (Redis up), and the calls that touch Redis in every way Parley does. */
async function fixtures(): Promise<{ agent: { id: string; agent_token: string }; calls: Call[] }> {
  const agent = (
    await p.request('POST', '/admin/v1/agents', {
      body: { name: 'Outage', mode: 'passthrough', webhook_url: webhook.url, events_url: `${events.url}/events` },
    })
  ).body as { id: string; agent_token: string };
  const preset = (await p.request('POST', '/admin/v1/presets', { body: { name: 'Outage preset' } })).body as {
    id: string;
  };
  expect(agent.id).toBeDefined();
  expect(preset.id).toBeDefined();
  const calls: Call[] = [
    { method: 'GET', path: '/admin/v1/agents' },
    { method: 'GET', path: `/admin/v1/agents/${agent.id}` },
    { method: 'POST', path: '/admin/v1/agents', body: { name: 'New' } }, // Lua script
    { method: 'PATCH', path: `/admin/v1/agents/${agent.id}`, body: { name: 'Renamed' } },
    { method: 'POST', path: '/admin/v1/presets', body: { name: 'P' } }, // MULTI
    { method: 'DELETE', path: `/admin/v1/presets/${preset.id}` },
    { method: 'GET', path: '/admin/v1/conversations' },
    { method: 'GET', path: '/admin/v1/errors' },
    {
      method: 'POST',
      path: `/admin/v1/agents/${agent.id}/documents`,
      body: () => ({ name: 'n.txt', text: `document number ${++uploads}` }),
    },
    { method: 'POST', path: '/sdk/v1/chat', body: { agent_token: agent.agent_token, message: 'hi' }, apiKey: null },
  ];
  return { agent, calls };
}

/** One request with the client's 5 s timeout: a hang fails the test instead of waiting it out. */
async function send(call: Call): Promise<TestResponse & { call: string }> {
  const name = `${call.method} ${call.path}`;
  const headers: Record<string, string> = call.apiKey === null ? {} : { 'X-API-Key': testAdminKey };
  const body = typeof call.body === 'function' ? (call.body as () => unknown)() : call.body;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(p.url + call.path, {
      method: call.method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(clientTimeoutMs),
    });
  } catch (err) {
    throw new Error(`${name}: no answer before the client's ${clientTimeoutMs} ms timeout (${String(err)})`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* not JSON: the assertions below show it */
  }
  return { status: res.status, headers: res.headers, body: parsed, call: name };
}

function expectStoreUnavailable(res: TestResponse & { call: string }): void {
  expect(res.status, `${res.call}: ${JSON.stringify(res.body)}`).toBe(503);
  expect(res.body.error.code).toBe('store_unavailable');
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(JSON.stringify(res.body)).not.toMatch(/redis|ECONN|Error:/i);
}

/** Waits until Parley reads from Redis again (it reconnects by itself; nothing is restarted). */
async function serving(): Promise<void> {
  await eventually(
    () => send({ method: 'GET', path: '/admin/v1/agents' }),
    (res) => res.status === 200,
    { timeoutMs: 15_000, intervalMs: 100, what: 'Parley serving again' },
  );
}

/** Every call succeeds with fresh records: the same process serves as before the fault. */
async function expectAllServe(): Promise<void> {
  const { calls } = await fixtures();
  for (const call of calls) {
    const res = await send(call);
    expect(res.status, `${res.call}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  }
}

describe('Redis frozen (SIGSTOP)', () => {
  it('answers every request 503 store_unavailable before the client timeout, and serves again after SIGCONT', async () => {
    const { calls } = await fixtures();
    redis.pauseServer();
    let inFlight: Awaited<ReturnType<typeof send>>[];
    let afterwards: Awaited<ReturnType<typeof send>>[];
    try {
      // Written to a frozen Redis: these wait on replies that do not come.
      inFlight = await Promise.all(calls.map(send));
      // Issued while the connection is being re-established against the still-frozen Redis.
      afterwards = await Promise.all(calls.map(send));
    } finally {
      redis.resumeServer();
    }
    for (const res of [...inFlight, ...afterwards]) expectStoreUnavailable(res);
    await serving();
    await expectAllServe();
  });
});

describe('Redis killed', () => {
  it('answers commands in flight (ECONNRESET) and every later request 503, and serves again after a restart', async () => {
    const { calls } = await fixtures();
    // Frozen first, so the commands are surely in flight when the process dies and resets them.
    redis.pauseServer();
    const inFlight = Promise.all(calls.map(send));
    await new Promise((r) => setTimeout(r, 200));
    await redis.killServer();
    for (const res of await inFlight) expectStoreUnavailable(res);
    // Refused now: commands, Lua scripts and MULTI fail at once.
    for (const res of await Promise.all(calls.map(send))) expectStoreUnavailable(res);
    await redis.startServer();
    await serving();
    await expectAllServe();
  });

  it('never answers 500 or hangs under load across a kill and a restart', async () => {
    const { calls } = await fixtures();
    const seen: Awaited<ReturnType<typeof send>>[] = [];
    let stop = false;
    const clients = Array.from({ length: 6 }, async (_, i) => {
      for (let n = i; !stop; n++) seen.push(await send(calls[n % calls.length]!));
    });
    await new Promise((r) => setTimeout(r, 300));
    await redis.killServer();
    await new Promise((r) => setTimeout(r, 700));
    await redis.startServer();
    await serving();
    stop = true;
    await Promise.all(clients);
    const outage = seen.filter((res) => res.status === 503);
    expect(outage.length).toBeGreaterThan(0);
    for (const res of outage) expectStoreUnavailable(res);
    for (const res of seen.filter((r) => r.status !== 503)) {
      // 404 only for a record created before the kill and lost with Redis's last second of writes.
      expect([200, 201, 202, 204, 404], `${res.call}: ${JSON.stringify(res.body)}`).toContain(res.status);
    }
  });
});

describe('queues after an outage', () => {
  it('the event outbox and the ingestion queue resume by themselves after a kill and a freeze', async () => {
    await redis.killServer();
    await redis.startServer();
    await serving();
    redis.pauseServer();
    await new Promise((r) => setTimeout(r, 2_000));
    redis.resumeServer();
    await serving();

    const { agent } = await fixtures();
    const before = events.requests.length;
    const chat = await send({
      method: 'POST',
      path: '/sdk/v1/chat',
      body: { agent_token: agent.agent_token, message: 'after the outage' },
      apiKey: null,
    });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    await eventually(
      () => events.requests.slice(before).map((r) => (r.json as { type: string }).type),
      (types) => types.includes('llm_response'),
      { timeoutMs: 15_000, what: 'llm_response delivered after the outage' },
    );

    const upload = await send({
      method: 'POST',
      path: `/admin/v1/agents/${agent.id}/documents`,
      body: { name: 'after.txt', text: 'Written after Redis came back. '.repeat(20) },
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    const doc = await waitForDocument(p, agent.id, upload.body.id as string, 30_000);
    expect(doc.status).toBe('ready');
  });
});
