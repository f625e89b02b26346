import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';

/** POST /sdk/v1/chat: sessions, continuation, authentication and request validation. */

const maxChars = 50;
const limits = {
  PARLEY_RATE_LIMIT_BURST: '10000',
  PARLEY_RATE_LIMIT_RPM: '100000',
  PARLEY_MAX_MESSAGE_CHARS: String(maxChars),
};
const unknownSession = 'ses_01jd3n6v8m0000000000000000';

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start();
  p = await startParley(redis, limits);
});
afterAll(async () => {
  await p?.close();
  await webhook?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  webhook.requests.length = 0;
  webhook.respond = (req) => ({
    body: { response: `re: ${(req.json as { data: { transcript: string } }).data.transcript}` },
  });
});

function chatAgent(name = 'Chat agent'): Promise<Agent> {
  return createAgent(p, { name, mode: 'passthrough', webhook_url: webhook.url });
}

function chat(body: unknown, on: TestParley = p): Promise<TestResponse> {
  return on.request('POST', '/sdk/v1/chat', { body, apiKey: null });
}

function expectValidation(res: TestResponse, paths: string[]): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'validation_error', request_id: expect.any(String) });
  expect((res.body.error.details as { path: string }[]).map((d) => d.path).sort()).toEqual([...paths].sort());
  for (const d of res.body.error.details as { message: unknown }[]) expect(d.message).toEqual(expect.any(String));
}

describe('sessions', () => {
  it('a second message with the session_id continues the session and its conversation', async () => {
    const agent = await chatAgent();
    const first = await chat({ agent_token: agent.agent_token, message: 'first question', user_id: 'u-1' });
    expect(first.status).toBe(200);
    const sessionId = first.body.session_id as string;
    expect(sessionId).toMatch(/^ses_[0-9a-z]{26}$/);
    const afterFirst = (await p.request('GET', `/admin/v1/sessions/${sessionId}`)).body;
    expect(afterFirst).toMatchObject({
      id: sessionId,
      agent_id: agent.id,
      type: 'chat',
      transport: 'chat',
      status: 'active',
      user_id: 'u-1',
      turns: 1,
      room: null,
    });

    const second = await chat({ agent_token: agent.agent_token, message: 'second question', session_id: sessionId });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ session_id: sessionId, response: 're: second question', mode: 'passthrough' });

    const session = (await p.request('GET', `/admin/v1/sessions/${sessionId}`)).body;
    expect(session.turns).toBe(2);
    expect(session.started_at).toBe(afterFirst.started_at);
    // Activity is recorded once the answer is in, so after the webhook saw the second message.
    expect(Date.parse(session.last_activity_at)).toBeGreaterThanOrEqual(webhook.requests[1]!.receivedAt);
    expect(Date.parse(session.last_activity_at)).toBeGreaterThanOrEqual(Date.parse(afterFirst.last_activity_at));

    const conversation = await p.request('GET', `/admin/v1/conversations/${session.conversation_id}`);
    expect(conversation.status).toBe(200);
    expect(conversation.body).toMatchObject({
      session_id: sessionId,
      agent_id: agent.id,
      user_id: 'u-1',
      message_count: 4,
    });
    const messages = conversation.body.messages as {
      role: string;
      text: string;
      status: string;
      timings: Record<string, number> | null;
    }[];
    expect(messages.map((m) => [m.role, m.text, m.status])).toEqual([
      ['user', 'first question', 'complete'],
      ['agent', 're: first question', 'complete'],
      ['user', 'second question', 'complete'],
      ['agent', 're: second question', 'complete'],
    ]);
    for (const m of [messages[1]!, messages[3]!]) {
      expect(m.timings).toEqual({ response_ms: expect.any(Number), webhook_ms: expect.any(Number) });
      expect(m.timings!['response_ms']).toBeGreaterThanOrEqual(m.timings!['webhook_ms']!);
    }

    const stats = await p.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      agent_id: agent.id,
      sessions: { total: 1, active: 1, chat: 1, voice: 0 },
      messages: { user: 2, agent: 2 },
      turns: 2,
      errors: { total: 0, open: 0 },
    });
    expect(stats.body.avg_response_ms).toEqual(expect.any(Number));
    expect(stats.body.last_active_at).toEqual(expect.any(String));

    const listed = await p.request('GET', `/admin/v1/agents/${agent.id}/sessions`);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([sessionId]);
  });

  it('a message without session_id starts a new session each time', async () => {
    const agent = await chatAgent();
    const a = await chat({ agent_token: agent.agent_token, message: 'a' });
    const b = await chat({ agent_token: agent.agent_token, message: 'b' });
    expect(a.body.session_id).not.toBe(b.body.session_id);
    const stats = await p.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(stats.body).toMatchObject({
      sessions: { total: 2, active: 2, chat: 2 },
      turns: 2,
      messages: { user: 2, agent: 2 },
    });
  });

  it("another agent's session_id is 404, as is an unknown one; nothing is called or stored", async () => {
    const owner = await chatAgent('Owner');
    const other = await chatAgent('Other');
    const mine = await chat({ agent_token: owner.agent_token, message: 'hello' });
    const stolen = await chat({
      agent_token: other.agent_token,
      message: 'let me in',
      session_id: mine.body.session_id,
    });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('not_found');
    const unknown = await chat({ agent_token: owner.agent_token, message: 'hello', session_id: unknownSession });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect(webhook.requests).toHaveLength(1);
    const session = (await p.request('GET', `/admin/v1/sessions/${mine.body.session_id}`)).body;
    expect(session.turns).toBe(1);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.conversation_id}`);
    expect(conversation.body.message_count).toBe(2);
  });

  it('a malformed session_id is 400', async () => {
    const agent = await chatAgent();
    for (const sessionId of ['ses_123', 'not-a-session', 'cnv_01jd3n6v8m0000000000000000', '', 42]) {
      expectValidation(await chat({ agent_token: agent.agent_token, message: 'hi', session_id: sessionId }), [
        'body.session_id',
      ]);
    }
    expect(webhook.requests).toHaveLength(0);
  });

  it('a session ended by the idle sweeper is 409 session_ended', async () => {
    const sweeping = await startParley(redis, {
      ...limits,
      PARLEY_CHAT_IDLE_TIMEOUT_MS: '1000',
      PARLEY_SESSION_SWEEP_INTERVAL_MS: '200',
    });
    try {
      const agent = await chatAgent();
      const first = await chat({ agent_token: agent.agent_token, message: 'hello' }, sweeping);
      expect(first.status).toBe(200);
      const sessionId = first.body.session_id as string;
      const ended = await eventually(
        async () => (await p.request('GET', `/admin/v1/sessions/${sessionId}`)).body,
        (s) => s.status === 'ended',
        { what: 'the idle sweeper ending the session' },
      );
      expect(ended).toMatchObject({ end_reason: 'idle_timeout', turns: 1 });
      expect(ended.ended_at).toEqual(expect.any(String));
      expect(ended.duration_ms).toEqual(expect.any(Number));

      for (const on of [sweeping, p]) {
        const again = await chat(
          { agent_token: agent.agent_token, message: 'still there?', session_id: sessionId },
          on,
        );
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('session_ended');
      }
      expect(webhook.requests).toHaveLength(1);
      const fresh = await chat({ agent_token: agent.agent_token, message: 'new start' });
      expect(fresh.status).toBe(200);
      expect(fresh.body.session_id).not.toBe(sessionId);
    } finally {
      await sweeping.close();
    }
  });
});

describe('authentication', () => {
  it('an unknown agent_token is 401 unauthorized', async () => {
    for (const token of ['pat_unknown', 'x', 'pat_' + 'A'.repeat(43)]) {
      const res = await chat({ agent_token: token, message: 'hi' });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'unauthorized', request_id: expect.any(String) });
    }
    expect(webhook.requests).toHaveLength(0);
  });

  it('a regenerated token replaces the old one at once; a deleted agent token is 401', async () => {
    const agent = await chatAgent();
    expect((await chat({ agent_token: agent.agent_token, message: 'hi' })).status).toBe(200);
    const regenerated = await p.request('POST', `/admin/v1/agents/${agent.id}/regenerate-token`);
    expect(regenerated.status).toBe(200);
    expect((await chat({ agent_token: agent.agent_token, message: 'hi' })).status).toBe(401);
    expect((await chat({ agent_token: regenerated.body.agent_token, message: 'hi' })).status).toBe(200);
    expect((await p.request('DELETE', `/admin/v1/agents/${agent.id}`)).status).toBe(204);
    expect((await chat({ agent_token: regenerated.body.agent_token, message: 'hi' })).status).toBe(401);
  });

  it('the admin key is no SDK credential and the agent token travels only in the body', async () => {
    const agent = await chatAgent();
    const res = await p.request('POST', '/sdk/v1/chat', {
      body: { message: 'hi' },
      headers: { Authorization: `Bearer ${agent.agent_token}`, 'X-Agent-Token': agent.agent_token },
    });
    expectValidation(res, ['body.agent_token']);
  });
});

describe('bad input is a clear 4xx, never a 500', () => {
  let agent: Agent;
  beforeEach(async () => {
    agent = await chatAgent();
  });

  it('a body that is not JSON', async () => {
    for (const rawBody of ['{not json', '{"agent_token": "x",}', '']) {
      const res = await p.request('POST', '/sdk/v1/chat', {
        rawBody,
        headers: { 'Content-Type': 'application/json' },
        apiKey: null,
      });
      expect(res.status).toBe(400);
      expect(['invalid_json', 'validation_error']).toContain(res.body.error.code);
      expect(res.body.error.request_id).toEqual(expect.any(String));
    }
  });

  it('a body that is JSON but not an object', async () => {
    for (const rawBody of ['[1,2]', '"hello"', '42', 'null', 'true']) {
      const res = await p.request('POST', '/sdk/v1/chat', {
        rawBody,
        headers: { 'Content-Type': 'application/json' },
        apiKey: null,
      });
      expect(res.status, rawBody).toBe(400);
      expect(['invalid_json', 'validation_error']).toContain(res.body.error.code);
    }
  });

  it('a body sent as another content type is 415', async () => {
    const res = await p.request('POST', '/sdk/v1/chat', {
      rawBody: `agent_token=${agent.agent_token}&message=hi`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      apiKey: null,
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('missing agent_token and message', async () => {
    expectValidation(await chat({}), ['body.agent_token', 'body.message']);
    expectValidation(await chat({ agent_token: agent.agent_token }), ['body.message']);
    expectValidation(await chat({ message: 'hi' }), ['body.agent_token']);
  });

  it(`an empty, blank or too long message (PARLEY_MAX_MESSAGE_CHARS=${maxChars})`, async () => {
    for (const message of ['', '   \n\t', 'x'.repeat(maxChars + 1)]) {
      expectValidation(await chat({ agent_token: agent.agent_token, message }), ['body.message']);
    }
    const atLimit = await chat({ agent_token: agent.agent_token, message: 'y'.repeat(maxChars) });
    expect(atLimit.status).toBe(200);
    expect((webhook.requests[0]!.json as { data: { transcript: string } }).data.transcript).toBe('y'.repeat(maxChars));
  });

  it('unknown fields are each listed, together with every other bad field', async () => {
    expectValidation(await chat({ agent_token: agent.agent_token, message: 'hi', mode: 'enhanced', stream: true }), [
      'body.mode',
      'body.stream',
    ]);
    expectValidation(await chat({ agent_token: 7, message: ['hi'], session_id: 'nope', user_id: 5, extra: null }), [
      'body.agent_token',
      'body.message',
      'body.session_id',
      'body.user_id',
      'body.extra',
    ]);
    expect(webhook.requests).toHaveLength(0);
  });

  it('an empty or overlong user_id', async () => {
    expectValidation(await chat({ agent_token: agent.agent_token, message: 'hi', user_id: '' }), ['body.user_id']);
    expectValidation(await chat({ agent_token: agent.agent_token, message: 'hi', user_id: 'u'.repeat(201) }), [
      'body.user_id',
    ]);
  });

  it('other methods on the SDK paths', async () => {
    const res = await p.request('GET', '/sdk/v1/chat', { apiKey: null });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
  });
});
