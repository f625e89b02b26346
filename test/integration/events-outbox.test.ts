import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { HttpReceiver, type ReceivedRequest } from '../support/http-receiver.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis, freePort } from '../support/redis-server.js';
import { verifyParleySignature } from '../support/signature.js';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';

/**
 * Asynchronous events (SPEC §6, DESIGN "Async events"): a durable outbox in Redis delivers
 * {id, type, session_id, agent_id, timestamp, data} to the agent's events_url, signed like the
 * webhook, with a stable X-Parley-Event-Id, 3 retries with backoff, an error record after the last,
 * and pending deliveries resumed by the next process.
 */

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const livekit = {
  LIVEKIT_URL: 'wss://lk.example.test',
  LIVEKIT_API_KEY: 'APIparleytest',
  LIVEKIT_API_SECRET: 'parley-test-livekit-secret-0123456789abcdef',
};
const baseEnv = {
  PARLEY_RATE_LIMIT_BURST: '10000',
  PARLEY_RATE_LIMIT_RPM: '100000',
  PARLEY_EVENT_RETRY_BASE_MS: '50',
  ...livekit,
};

interface Envelope {
  id: string;
  type: string;
  session_id: string;
  agent_id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let events: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start();
  events = await HttpReceiver.start();
  p = await startParley(redis, baseEnv);
});
afterAll(async () => {
  await p?.close();
  await webhook?.close();
  await events?.close();
  await redis?.close();
});
beforeEach(async () => {
  // Let deliveries of the previous test finish before the data goes.
  await eventually(
    () => p.parley.services.outbox.backlog(),
    (n) => n === 0,
    { what: 'an empty outbox' },
  );
  await redis.flush();
  webhook.requests.length = 0;
  events.requests.length = 0;
  webhook.respond = (req) => ({
    body: { response: `re: ${(req.json as { data: { transcript: string } }).data.transcript}` },
  });
  events.respond = () => ({ status: 204 });
});

/** A passthrough agent whose events go to `receiver`. */
function eventedAgent(
  settings: Record<string, unknown> = {},
  on: TestParley = p,
  receiver: HttpReceiver = events,
): Promise<Agent> {
  return createAgent(on, {
    name: 'Evented',
    mode: 'passthrough',
    webhook_url: webhook.url,
    events_url: `${receiver.url}/events`,
    ...settings,
  });
}

function chat(token: string, message: string, sessionId?: string, on: TestParley = p): Promise<TestResponse> {
  return on.request('POST', '/sdk/v1/chat', {
    body: { agent_token: token, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
    apiKey: null,
  });
}

function envelope(req: ReceivedRequest): Envelope {
  return req.json as Envelope;
}

function ofType(list: ReceivedRequest[], type: string): ReceivedRequest[] {
  return list.filter((r) => envelope(r).type === type);
}

/** Requests grouped by X-Parley-Event-Id. */
function byEventId(list: ReceivedRequest[]): Map<string, ReceivedRequest[]> {
  const groups = new Map<string, ReceivedRequest[]>();
  for (const r of list) {
    const id = String(r.headers['x-parley-event-id']);
    groups.set(id, [...(groups.get(id) ?? []), r]);
  }
  return groups;
}

describe('delivery', () => {
  it('a new chat session sends session_start, then llm_response per answer, in the envelope, signed', async () => {
    const key = 'whk_events_secret_123';
    const agent = await eventedAgent({ webhook_api_key: key });
    const first = await chat(agent.agent_token, 'hello');
    expect(first.status).toBe(200);
    const sessionId = first.body.session_id as string;
    await events.waitFor(2);

    const [start] = ofType(events.requests, 'session_start');
    const [answer] = ofType(events.requests, 'llm_response');
    expect(start).toBeDefined();
    expect(answer).toBeDefined();
    for (const req of [start!, answer!]) {
      const env = envelope(req);
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/events');
      expect(Object.keys(env).sort()).toEqual(['agent_id', 'data', 'id', 'session_id', 'timestamp', 'type']);
      expect(env).toMatchObject({
        id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        session_id: sessionId,
        agent_id: agent.id,
      });
      expect(new Date(env.timestamp).toISOString()).toBe(env.timestamp);
      expect(req.headers['x-parley-event-id']).toBe(env.id);
      expect(req.headers['content-type']).toMatch(/^application\/json/);
      expect(req.headers['user-agent']).toBe(`Parley/${packageVersion}`);
      expect(req.headers['authorization']).toBe(`Bearer ${key}`);
      expect(verifyParleySignature(req.headers['x-parley-signature'], req.rawBody, key).valid).toBe(true);
    }
    // session_start comes first: ids and timestamps are in emission order (delivery order is not promised).
    expect(envelope(start!).id < envelope(answer!).id).toBe(true);
    expect(Date.parse(envelope(start!).timestamp)).toBeLessThanOrEqual(Date.parse(envelope(answer!).timestamp));
    expect(envelope(start!).data).toMatchObject({
      session_type: 'chat',
      transport: 'chat',
      user_id: null,
      conversation_id: expect.stringMatching(/^cnv_/),
    });
    expect(envelope(answer!).data).toMatchObject({
      transcript: 'hello',
      response: 're: hello',
      source: 'webhook',
      latency_ms: expect.any(Number),
      channel: 'chat',
    });

    const second = await chat(agent.agent_token, 'again', sessionId);
    expect(second.status).toBe(200);
    await events.waitFor(3);
    const third = envelope(events.requests[2]!);
    expect(third).toMatchObject({
      type: 'llm_response',
      session_id: sessionId,
      data: { transcript: 'again', response: 're: again' },
    });
    expect(new Set(events.requests.map((r) => envelope(r).id)).size).toBe(3);
    expect(ofType(events.requests, 'session_start')).toHaveLength(1);
  });

  it('is unsigned and without Authorization when the agent has no key', async () => {
    const agent = await eventedAgent();
    await chat(agent.agent_token, 'hello');
    const [req] = await events.waitFor(1);
    expect(req!.headers['authorization']).toBeUndefined();
    expect(req!.headers['x-parley-signature']).toBeUndefined();
    expect(req!.headers['x-parley-event-id']).toBe(envelope(req!).id);
  });

  it('goes only to agents with an events_url, never to the webhook', async () => {
    const silent = await eventedAgent({ events_url: null });
    await chat(silent.agent_token, 'quiet');
    const loud = await eventedAgent();
    await chat(loud.agent_token, 'loud');
    await events.waitFor(2);
    await eventually(
      () => p.parley.services.outbox.backlog(),
      (n) => n === 0,
      { what: 'an empty outbox' },
    );
    expect(new Set(events.requests.map((r) => envelope(r).agent_id))).toEqual(new Set([loud.id]));
    expect(webhook.requests.map((r) => (r.json as { type: string }).type)).toEqual([
      'transcription_complete',
      'transcription_complete',
    ]);
  });

  it('a voice session sends session_start with its room', async () => {
    const agent = await eventedAgent();
    const res = await p.request('POST', '/sdk/v1/session', {
      body: { agent_token: agent.agent_token, user_id: 'caller' },
      apiKey: null,
    });
    expect(res.status).toBe(201);
    const [req] = await events.waitFor(1);
    expect(envelope(req!)).toMatchObject({
      type: 'session_start',
      session_id: res.body.session_id,
      agent_id: agent.id,
      data: { session_type: 'voice', transport: 'livekit', user_id: 'caller', room: `parley-${res.body.session_id}` },
    });
  });

  it('the chat answer does not wait for the events receiver', async () => {
    const answered: number[] = [];
    events.respond = async () => {
      await new Promise((r) => setTimeout(r, 2_000));
      answered.push(Date.now());
      return { status: 200 };
    };
    const agent = await eventedAgent();
    const res = await chat(agent.agent_token, 'fast please');
    expect(res.status).toBe(200);
    // The receiver holds each event for 2 s before answering: the chat answer came back before it
    // had answered any, and delivery is still under way afterwards.
    expect(answered).toHaveLength(0);
    await events.waitFor(1);
    expect(answered).toHaveLength(0);
    await eventually(
      () => answered.length,
      (n) => n === 2,
      { what: 'both events answered' },
    );
  });
});

describe('retries', () => {
  it('a delivery that fails twice is retried with the same event id and delivered on the third attempt', async () => {
    const attempts = new Map<string, number>();
    events.respond = (req) => {
      const id = String(req.headers['x-parley-event-id']);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      return { status: n <= 2 ? 500 : 200 };
    };
    const agent = await eventedAgent({ webhook_api_key: 'k' });
    const res = await chat(agent.agent_token, 'retry me');
    expect(res.status).toBe(200);
    await events.waitFor(6);
    await eventually(
      () => p.parley.services.outbox.backlog(),
      (n) => n === 0,
      { what: 'all delivered' },
    );
    const groups = byEventId(events.requests);
    expect(groups.size).toBe(2);
    for (const [id, tries] of groups) {
      expect(tries).toHaveLength(3);
      expect(tries.map((t) => t.headers['x-parley-event-attempt'])).toEqual(['1', '2', '3']);
      for (const t of tries) {
        expect(envelope(t).id).toBe(id);
        expect(envelope(t)).toEqual(envelope(tries[0]!));
        expect(verifyParleySignature(t.headers['x-parley-signature'], t.rawBody, 'k').valid).toBe(true);
      }
    }
    const failed = await p.request('GET', '/admin/v1/errors?type=event_delivery_failed');
    expect(failed.body.data).toEqual([]);
  });

  it('a network failure is retried like a 5xx', async () => {
    const agent = await eventedAgent({ events_url: `http://127.0.0.1:${await freePort()}/unreachable` });
    await chat(agent.agent_token, 'nobody home');
    const records = await eventually(
      async () =>
        (await p.request('GET', `/admin/v1/errors?type=event_delivery_failed&agent_id=${agent.id}`)).body.data as {
          status_code: number | null;
          details: { attempts: number };
        }[],
      (list) => list.length === 2,
      { what: 'two event_delivery_failed records' },
    );
    for (const r of records) expect(r).toMatchObject({ status_code: null, details: { attempts: 4 } });
  });

  it('after 4 failed attempts an event_delivery_failed error record names the event', async () => {
    events.respond = () => ({ status: 503, body: { error: 'maintenance' } });
    const agent = await eventedAgent();
    const res = await chat(agent.agent_token, 'doomed');
    const sessionId = res.body.session_id as string;
    const records = await eventually(
      async () =>
        (await p.request('GET', '/admin/v1/errors?type=event_delivery_failed')).body.data as Record<string, unknown>[],
      (list) => list.length === 2,
      { what: 'two event_delivery_failed records' },
    );
    const groups = byEventId(events.requests);
    expect(groups.size).toBe(2);
    for (const tries of groups.values())
      expect(tries.map((t) => t.headers['x-parley-event-attempt'])).toEqual(['1', '2', '3', '4']);
    const eventIds = [...groups.keys()].sort();
    expect(records.map((r) => (r['details'] as { event_id: string }).event_id).sort()).toEqual(eventIds);
    for (const r of records) {
      expect(r).toMatchObject({
        type: 'event_delivery_failed',
        agent_id: agent.id,
        session_id: sessionId,
        status_code: 503,
        status: 'open',
        details: {
          event_id: expect.stringMatching(/^evt_/),
          event_type: expect.any(String),
          events_url: `${events.url}/events`,
          attempts: 4,
        },
      });
    }
    expect(await p.parley.services.outbox.backlog()).toBe(0);
    const stats = await p.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(stats.body.errors).toEqual({ total: 2, open: 2 });
  });
});

describe('durability', () => {
  it('an event pending when Parley stops is delivered by the next process, with the same id', async () => {
    // A Redis of its own, so that no other running instance picks the job up.
    const ownRedis = await TestRedis.start();
    const receiver = await HttpReceiver.start(() => ({ status: 500 }));
    const env = { ...baseEnv, PARLEY_EVENT_RETRY_BASE_MS: '1000' };
    let first: TestParley | undefined = await startParley(ownRedis, env);
    let second: TestParley | undefined;
    try {
      const agent = await eventedAgent({}, first, receiver);
      const res = await chat(agent.agent_token, 'survive a restart', undefined, first);
      expect(res.status).toBe(200);
      const failedAttempts = await receiver.waitFor(2);
      const pendingIds = new Set(failedAttempts.map((r) => String(r.headers['x-parley-event-id'])));
      expect(pendingIds.size).toBe(2);
      await first.close();
      first = undefined;

      receiver.respond = () => ({ status: 200 });
      second = await startParley(ownRedis, env);
      const delivered = await eventually(
        () => receiver.requests.filter((r) => r.headers['x-parley-event-attempt'] !== '1'),
        (list) => list.length >= 2,
        { what: 'the pending events delivered after the restart', timeoutMs: 15_000 },
      );
      expect(new Set(delivered.map((r) => String(r.headers['x-parley-event-id'])))).toEqual(pendingIds);
      for (const r of delivered) expect(envelope(r).id).toBe(r.headers['x-parley-event-id']);
      await eventually(
        () => second!.parley.services.outbox.backlog(),
        (n) => n === 0,
        { what: 'an empty outbox' },
      );
    } finally {
      await first?.close();
      await second?.close();
      await receiver.close();
      await ownRedis.close();
    }
  });
});

describe('session_end', () => {
  const sweeping = { ...baseEnv, PARLEY_CHAT_IDLE_TIMEOUT_MS: '1000', PARLEY_SESSION_SWEEP_INTERVAL_MS: '200' };

  it('is sent once when the idle sweeper ends a chat session, with two instances sweeping', async () => {
    const one = await startParley(redis, sweeping);
    const two = await startParley(redis, sweeping);
    try {
      const agent = await eventedAgent({}, one);
      const res = await chat(agent.agent_token, 'then silence', undefined, two);
      const sessionId = res.body.session_id as string;
      const ends = await eventually(
        () => ofType(events.requests, 'session_end'),
        (list) => list.length >= 1,
        { what: 'session_end' },
      );
      expect(envelope(ends[0]!)).toMatchObject({
        type: 'session_end',
        session_id: sessionId,
        agent_id: agent.id,
        data: { reason: 'idle_timeout', turns: 1, session_type: 'chat', duration_ms: expect.any(Number) },
      });
      // Further sweeps by either instance find nothing to end.
      expect(await one.parley.services.sweeper.sweep()).toBe(0);
      expect(await two.parley.services.sweeper.sweep()).toBe(0);
      for (const on of [one, two, p])
        await eventually(
          () => on.parley.services.outbox.backlog(),
          (n) => n === 0,
          { what: 'an empty outbox' },
        );
      expect(ofType(events.requests, 'session_end')).toHaveLength(1);
      const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
      expect(session.body).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('two sweeps racing over the same idle sessions end each once and send one session_end each', async () => {
    const agent = await eventedAgent();
    const stored = await p.parley.store.agents.getStored(agent.id);
    const old = Date.now() - 3_600_000;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.push(
        (await p.parley.store.sessions.create({ agent_id: stored.id, type: 'chat', transport: 'chat' }, old + i)).id,
      );
    const other = await startParley(redis, { ...baseEnv, PARLEY_CHAT_IDLE_TIMEOUT_MS: '60000' });
    try {
      const [a, b] = await Promise.all([p.parley.services.sweeper.sweep(), other.parley.services.sweeper.sweep()]);
      // Each session is ended by exactly one sweep (an interval sweep may take some too).
      expect(a + b).toBeLessThanOrEqual(10);
      for (const id of ids) expect((await p.parley.store.sessions.get(id)).status).toBe('ended');
      const ends = await eventually(
        () => ofType(events.requests, 'session_end'),
        (list) => list.length >= 10,
        { what: '10 session_end events' },
      );
      for (const on of [p, other])
        await eventually(
          () => on.parley.services.outbox.backlog(),
          (n) => n === 0,
          { what: 'an empty outbox' },
        );
      expect(ofType(events.requests, 'session_end')).toHaveLength(10);
      expect(ends.map((r) => envelope(r).session_id).sort()).toEqual([...ids].sort());
    } finally {
      await other.close();
    }
  });

  it('is sent, signed with the agent’s key, for each session ended by deleting the agent', async () => {
    const key = 'whk_deleted_agent_key';
    const agent = await eventedAgent({ webhook_api_key: key });
    const chatted = await chat(agent.agent_token, 'hello before the end');
    const chatSession = chatted.body.session_id as string;
    const voice = await p.parley.services.recorder.started(await p.parley.store.agents.getStored(agent.id), {
      agent_id: agent.id,
      type: 'voice',
      transport: 'websocket',
    });
    expect((await p.request('DELETE', `/admin/v1/agents/${agent.id}`)).status).toBe(204);

    const ends = await eventually(
      () => ofType(events.requests, 'session_end'),
      (list) => list.length >= 2,
      { what: 'two session_end events' },
    );
    expect(Object.fromEntries(ends.map((r) => [envelope(r).session_id, envelope(r).data]))).toEqual({
      [chatSession]: expect.objectContaining({ reason: 'agent_deleted', session_type: 'chat', turns: 1 }),
      [voice.id]: expect.objectContaining({ reason: 'agent_deleted', session_type: 'voice', turns: 0 }),
    });
    for (const r of ends)
      expect(verifyParleySignature(r.headers['x-parley-signature'], r.rawBody, key).valid).toBe(true);
    for (const id of [chatSession, voice.id])
      expect((await p.request('GET', `/admin/v1/sessions/${id}`)).body).toMatchObject({
        status: 'ended',
        end_reason: 'agent_deleted',
      });
  });

  it('idle voice sessions do not hold up the chat sweep', async () => {
    const agent = await eventedAgent();
    const old = Date.now() - 3_600_000;
    for (let i = 0; i < 120; i++)
      await p.parley.store.sessions.create({ agent_id: agent.id, type: 'voice', transport: 'livekit' }, old + i);
    const chatSession = await p.parley.store.sessions.create(
      { agent_id: agent.id, type: 'chat', transport: 'chat' },
      old + 500,
    );
    expect(await p.parley.services.sweeper.sweep()).toBe(1);
    expect((await p.parley.store.sessions.get(chatSession.id)).status).toBe('ended');
  });
});
