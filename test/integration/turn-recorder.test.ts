import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../src/schemas/outbox-entry.js';
import type { StoredAgent } from '../../src/schemas/agent.js';
import type { Message } from '../../src/schemas/conversation.js';
import type { Session } from '../../src/schemas/session.js';
import { createTurnRecorder, type SessionRecorder } from '../../src/session-writes/turn-recorder.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver, type ReceivedRequest } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The turn recorder through real Redis: every record and the event announcing it are written in
 * one step into the transactional outbox, and the relay delivers them to a real receiver.
 */

let redis: TestRedis;
let p: TestParley;
let events: HttpReceiver;
let recorder: SessionRecorder;

// A long relay interval: entries move only when a write wakes the relay or a test relays them.
const env = { PARLEY_EVENT_RETRY_BASE_MS: '50', PARLEY_EVENT_RELAY_INTERVAL_MS: '600000' };

beforeAll(async () => {
  redis = await TestRedis.start();
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(redis, env);
  recorder = p.parley.services.recorder;
});
afterAll(async () => {
  await p?.close();
  await events?.close();
  await redis?.close();
});
beforeEach(async () => {
  await eventually(
    () => p.parley.services.outbox.backlog(),
    (n) => n === 0,
    { what: 'an empty outbox' },
  );
  await redis.flush();
  events.requests.length = 0;
});

async function agent(settings: Record<string, unknown> = {}): Promise<StoredAgent> {
  const res = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'Recorded', mode: 'enhanced', events_url: `${events.url}/events`, ...settings },
  });
  expect(res.status).toBe(201);
  return p.parley.store.agents.getStored(res.body.id as string);
}

async function messages(session: Session): Promise<Message[]> {
  return (await p.parley.store.conversations.getWithMessages(session.conversation_id)).messages;
}

async function outbox(): Promise<OutboxEntry[]> {
  const raw = await p.parley.store.redis.lRange(p.parley.store.keys.eventOutbox(), 0, -1);
  return raw.map((e) => JSON.parse(e) as OutboxEntry);
}

function delivered(type: string): Record<string, unknown>[] {
  return events.requests
    .map((r: ReceivedRequest) => r.json as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type === type)
    .map((e) => e.data);
}

async function allDelivered(): Promise<void> {
  await p.parley.services.outbox.relayAll();
  await eventually(
    () => p.parley.services.outbox.backlog(),
    (n) => n === 0,
    { what: 'every event delivered' },
  );
}

describe('chat turns', () => {
  it('session, user message and answer are stored, counted and announced once each', async () => {
    const a = await agent();
    const session = await recorder.started(a, { agent_id: a.id, type: 'chat', transport: 'chat', user_id: 'u-1' });
    await recorder.user(session, { text: 'hello' });
    const answer = await recorder.answered(a, session, {
      channel: 'chat',
      turn: 1,
      transcript: 'hello',
      text: 'hi there',
      status: 'complete',
      source: 'llm',
      timings: { response_ms: 120, llm_ms: 100 },
      latencyMs: 100,
    });
    expect((await messages(session)).map((m) => [m.role, m.text, m.status])).toEqual([
      ['user', 'hello', 'complete'],
      ['agent', 'hi there', 'complete'],
    ]);
    expect((await p.parley.store.sessions.get(session.id)).turns).toBe(1);
    const stats = await p.parley.store.agents.stats(a.id);
    expect(stats).toMatchObject({ turns: 1, messages: { user: 1, agent: 1 } });

    await allDelivered();
    expect(delivered('session_start')).toEqual([
      { session_type: 'chat', transport: 'chat', user_id: 'u-1', conversation_id: session.conversation_id },
    ]);
    expect(delivered('llm_response')).toEqual([
      {
        transcript: 'hello',
        response: 'hi there',
        source: 'llm',
        message_id: answer.id,
        channel: 'chat',
        turn: 1,
        interrupted: false,
        timings: { response_ms: 120, llm_ms: 100 },
        latency_ms: 100,
      },
    ]);
    // The event id is the delivery's idempotency key.
    for (const r of events.requests) expect(r.headers['x-parley-event-id']).toBe((r.json as { id: string }).id);
  });

  it('a failed turn stores a failed answer linked to its error record, not counted, not announced', async () => {
    const a = await agent();
    const session = await recorder.started(a, { agent_id: a.id, type: 'chat', transport: 'chat' });
    const error = await p.parley.store.errors.record({ type: 'llm_error', message: 'boom', agent_id: a.id });
    await recorder.user(session, { text: 'hello' });
    await recorder.answered(a, session, {
      channel: 'chat',
      turn: 1,
      transcript: 'hello',
      text: '',
      status: 'failed',
      source: 'llm',
      errorId: error.id,
      timings: { response_ms: 5 },
    });
    const [, failed] = await messages(session);
    expect(failed).toMatchObject({ role: 'agent', status: 'failed', error_id: error.id, text: '' });
    expect((await p.parley.store.sessions.get(session.id)).turns).toBe(0);
    expect((await outbox()).map((e) => e.envelope.type)).not.toContain('llm_response');
    await allDelivered();
    expect(delivered('llm_response')).toEqual([]);
  });

  it('agents without an events_url get their records and no outbox entries', async () => {
    const a = await agent({ events_url: null });
    const session = await recorder.started(a, { agent_id: a.id, type: 'chat', transport: 'chat' });
    await recorder.answered(a, session, {
      channel: 'chat',
      turn: 1,
      transcript: 'x',
      text: 'y',
      status: 'complete',
      source: 'llm',
      timings: {},
    });
    expect(await recorder.ended(a, session.id, 'client_hangup', { error: null, session_type: 'chat' })).not.toBeNull();
    expect(await messages(session)).toHaveLength(1);
    expect(await outbox()).toEqual([]);
    expect(await p.parley.services.outbox.backlog()).toBe(0);
  });
});

describe('voice turns', () => {
  async function voiceSession(a: StoredAgent): Promise<Session> {
    return recorder.started(a, { agent_id: a.id, type: 'voice', transport: 'websocket' });
  }

  it('the greeting is turn 0: stored, not counted, no llm_response', async () => {
    const a = await agent();
    const session = await voiceSession(a);
    const greeting = await recorder.answered(a, session, {
      channel: 'voice',
      turn: 0,
      transcript: null,
      text: 'Welcome!',
      status: 'complete',
      source: 'greeting',
      timings: {},
    });
    expect(await messages(session)).toEqual([greeting]);
    expect((await p.parley.store.sessions.get(session.id)).turns).toBe(0);
    await allDelivered();
    expect(events.requests.map((r) => (r.json as { type: string }).type)).toEqual(['session_start']);
  });

  it('an answer cut by barge-in: played() stores the spoken part, interrupted, with its timings; once', async () => {
    const a = await agent();
    const session = await voiceSession(a);
    await recorder.user(session, { text: 'tell me a story', timings: { stt_ms: 80 } });
    const answer = await recorder.answered(a, session, {
      channel: 'voice',
      turn: 1,
      transcript: 'tell me a story',
      text: 'Once upon a time. There was a dragon.',
      status: 'complete',
      source: 'llm',
      timings: { stt_ms: 80, response_ms: 300 },
    });
    const played = {
      turn: 1,
      interrupted: true,
      spokenText: 'Once upon a time.',
      durationMs: 1234.4,
      timings: { first_audio_ms: 90, end_to_end_ms: 470 },
    };
    await recorder.played(a, session, answer.id, played);
    await recorder.played(a, session, answer.id, played); // a retried write changes nothing
    const [, stored] = await messages(session);
    expect(stored).toEqual({
      ...answer,
      status: 'interrupted',
      text: 'Once upon a time.',
      timings: { stt_ms: 80, response_ms: 300, first_audio_ms: 90, end_to_end_ms: 470 },
    });
    expect(await p.parley.store.agents.stats(a.id)).toMatchObject({ turns: 1, interrupted_turns: 1 });
    await allDelivered();
    expect(delivered('llm_response')).toHaveLength(1);
    expect(delivered('audio_ready')).toEqual([
      {
        message_id: answer.id,
        turn: 1,
        interrupted: true,
        spoken_text: 'Once upon a time.',
        duration_ms: 1234,
        first_audio_ms: 90,
      },
    ]);
  });

  it('a played answer that finished is marked complete and keeps its text', async () => {
    const a = await agent();
    const session = await voiceSession(a);
    const answer = await recorder.answered(a, session, {
      channel: 'voice',
      turn: 1,
      transcript: 'hi',
      text: 'Hello.',
      status: 'complete',
      source: 'webhook',
      timings: { response_ms: 10 },
    });
    await recorder.played(a, session, answer.id, {
      turn: 1,
      interrupted: false,
      spokenText: 'Hello.',
      durationMs: 800,
      timings: { first_audio_ms: 30 },
    });
    const [stored] = await messages(session);
    expect(stored).toMatchObject({
      status: 'complete',
      text: 'Hello.',
      timings: { response_ms: 10, first_audio_ms: 30 },
    });
    expect(await p.parley.store.agents.stats(a.id)).toMatchObject({ interrupted_turns: 0 });
  });

  it('ended() ends the session once and writes one session_end with its duration and turns', async () => {
    const a = await agent();
    const session = await voiceSession(a);
    await recorder.answered(a, session, {
      channel: 'voice',
      turn: 1,
      transcript: 'hi',
      text: 'Hello.',
      status: 'complete',
      source: 'llm',
      timings: {},
    });
    const [first, second] = await Promise.all([
      recorder.ended(a, session.id, 'client_hangup', { error: null, session_type: 'voice' }),
      recorder.ended(a, session.id, 'error', { error: 'late', session_type: 'voice' }),
    ]);
    expect(first).toMatchObject({ id: session.id, status: 'ended', end_reason: 'client_hangup', turns: 1 });
    expect(second).toBeNull();
    await allDelivered();
    expect(delivered('session_end')).toEqual([
      { reason: 'client_hangup', error: null, duration_ms: first!.duration_ms, turns: 1, session_type: 'voice' },
    ]);
  });
});

describe('the relay', () => {
  it('an entry whose job was queued before the relay died is delivered once (the event id is the job id)', async () => {
    const a = await agent();
    const session = await recorder.started(a, { agent_id: a.id, type: 'chat', transport: 'chat' });
    await allDelivered();
    events.requests.length = 0;
    // As if a relay added the job and was killed before taking the entry out of the outbox.
    const entry: OutboxEntry = {
      envelope: {
        id: 'evt_01jdrelaytest00000000000000',
        type: 'llm_response',
        session_id: session.id,
        agent_id: a.id,
        timestamp: new Date().toISOString(),
        data: { response: 'once' },
      },
      url: `${events.url}/events`,
      key: null,
    };
    await p.parley.store.redis.rPush(p.parley.store.keys.eventOutbox(), JSON.stringify(entry));
    await p.parley.services.outbox.enqueue([entry]);
    await allDelivered();
    await events.waitFor(1);
    expect(await outbox()).toEqual([]);
    expect(events.requests.map((r) => r.headers['x-parley-event-id'])).toEqual([entry.envelope.id]);
  });
});

describe('voice records during a Redis outage', () => {
  it('are retried in order and stored when Redis returns', async () => {
    const a = await agent();
    const session = await recorder.started(a, { agent_id: a.id, type: 'voice', transport: 'websocket' });
    await redis.stopServer();
    const user = recorder.user(session, { text: 'are you there?' });
    const answered = recorder.answered(a, session, {
      channel: 'voice',
      turn: 1,
      transcript: 'are you there?',
      text: 'Yes.',
      status: 'complete',
      source: 'llm',
      timings: {},
    });
    await new Promise((r) => setTimeout(r, 500));
    await redis.startServer();
    await user;
    const message = await answered;
    const stored = await eventually(
      () => messages(session),
      (list) => list.length === 2,
      { what: 'both messages stored' },
    );
    expect(stored.map((m) => m.text)).toEqual(['are you there?', 'Yes.']);
    expect(stored[1]!.id).toBe(message.id);
    await allDelivered();
    expect(delivered('llm_response')).toHaveLength(1);
  });

  it('are given up after the retry window with an error log; the caller neither hangs nor sees a rejection', async () => {
    const a = await agent();
    const session = await recorder.started(a, { agent_id: a.id, type: 'voice', transport: 'websocket' });
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const impatient = createTurnRecorder({
      store: p.parley.store,
      outbox: p.parley.services.outbox,
      logger,
      retryWindowMs: 300,
    });
    await redis.stopServer();
    try {
      await expect(impatient.user(session, { text: 'lost' })).resolves.toBeUndefined();
      await expect(
        impatient.ended(a, session.id, 'client_hangup', { error: null, session_type: 'voice' }),
      ).resolves.toBeNull();
    } finally {
      await redis.startServer();
    }
    const lost = lines.filter((l) => l['msg'] === 'session record lost');
    expect(lost.map((l) => l['write'])).toEqual(['user message', 'session end']);
    expect(lost.every((l) => l['session_id'] === session.id && l['level'] === 50)).toBe(true);
  });
});
