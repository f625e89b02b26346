import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpReceiver, type ReceivedRequest } from '../support/http-receiver.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis, freePort } from '../support/redis-server.js';
import { verifyParleySignature } from '../support/signature.js';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';

/** POST /sdk/v1/chat in passthrough mode: SPEC §4.5 webhook contract and the 502s of §7. */

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start();
  p = await startParley(redis, { PARLEY_RATE_LIMIT_BURST: '10000', PARLEY_RATE_LIMIT_RPM: '100000' });
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
    status: 200,
    body: { response: `you said: ${(req.json as { data: { transcript: string } }).data.transcript}` },
  });
});

/** A passthrough agent whose webhook is the test receiver's /hook. */
function passthroughAgent(settings: Record<string, unknown> = {}): Promise<Agent> {
  return createAgent(p, { name: 'Passthrough', mode: 'passthrough', webhook_url: `${webhook.url}/hook`, ...settings });
}

function chat(body: Record<string, unknown>): Promise<TestResponse> {
  return p.request('POST', '/sdk/v1/chat', { body, apiKey: null });
}

function last(): ReceivedRequest {
  const req = webhook.requests.at(-1);
  if (req === undefined) throw new Error('the webhook received nothing');
  return req;
}

describe('the webhook request', () => {
  it('is exactly the SPEC body, with Bearer key, User-Agent and a signature that verifies', async () => {
    const key = 'whk_live_0123456789abcdef';
    const agent = await passthroughAgent({ webhook_api_key: key });
    const res = await chat({ agent_token: agent.agent_token, message: 'Where is my order?', user_id: 'user-42' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['mode', 'response', 'session_id']);
    expect(res.body).toEqual({
      session_id: expect.stringMatching(/^ses_/),
      response: 'you said: Where is my order?',
      mode: 'passthrough',
    });

    expect(webhook.requests).toHaveLength(1);
    const req = last();
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    const body = req.json as Record<string, unknown> & { data: Record<string, unknown> };
    expect(Object.keys(body).sort()).toEqual(['data', 'session_id', 'timestamp', 'type']);
    expect(Object.keys(body.data).sort()).toEqual(['context', 'transcript', 'user_id']);
    expect(body.type).toBe('transcription_complete');
    expect(body.session_id).toBe(res.body.session_id);
    expect(body.timestamp).toMatch(isoUtc);
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    expect(body.data).toEqual({ transcript: 'Where is my order?', user_id: 'user-42', context: null });

    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.headers['authorization']).toBe(`Bearer ${key}`);
    expect(req.headers['user-agent']).toBe(`Parley/${packageVersion}`);
    const signature = verifyParleySignature(req.headers['x-parley-signature'], req.rawBody, key);
    expect(signature.valid).toBe(true);
    expect(Math.abs(signature.t - Date.now() / 1000)).toBeLessThan(300);
    // The same header does not verify with another key or a changed body.
    expect(verifyParleySignature(req.headers['x-parley-signature'], req.rawBody, 'another-key').valid).toBe(false);
    expect(
      verifyParleySignature(req.headers['x-parley-signature'], req.rawBody.replace('order', 'Order'), key).valid,
    ).toBe(false);
  });

  it('has no Authorization and no signature without a key, and user_id null when the client sent none', async () => {
    const agent = await passthroughAgent();
    const res = await chat({ agent_token: agent.agent_token, message: 'hi' });
    expect(res.status).toBe(200);
    const req = last();
    expect(req.headers['authorization']).toBeUndefined();
    expect(req.headers['x-parley-signature']).toBeUndefined();
    expect(req.headers['user-agent']).toBe(`Parley/${packageVersion}`);
    expect((req.json as { data: unknown }).data).toEqual({ transcript: 'hi', user_id: null, context: null });
  });

  it('is sent once per chat message; a continued session keeps its user_id', async () => {
    const agent = await passthroughAgent();
    const first = await chat({ agent_token: agent.agent_token, message: 'one', user_id: 'u-1' });
    const second = await chat({ agent_token: agent.agent_token, message: 'two', session_id: first.body.session_id });
    const third = await chat({
      agent_token: agent.agent_token,
      message: 'three',
      session_id: first.body.session_id,
      user_id: 'u-2',
    });
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect(webhook.requests).toHaveLength(3);
    const bodies = webhook.requests.map(
      (r) => r.json as { session_id: string; data: { transcript: string; user_id: string | null } },
    );
    expect(bodies.map((b) => b.data.transcript)).toEqual(['one', 'two', 'three']);
    expect(bodies.map((b) => b.session_id)).toEqual([
      first.body.session_id,
      first.body.session_id,
      first.body.session_id,
    ]);
    expect(bodies.map((b) => b.data.user_id)).toEqual(['u-1', 'u-1', 'u-2']);
    expect(third.body.response).toBe('you said: three');
  });

  it('passes the text of the reply through unchanged (unicode, empty string)', async () => {
    const agent = await passthroughAgent();
    webhook.respond = () => ({ body: { response: 'Grüße 👋 — "quoted"', extra: 'ignored' } });
    const res = await chat({ agent_token: agent.agent_token, message: 'hello' });
    expect(res.body.response).toBe('Grüße 👋 — "quoted"');
    webhook.respond = () => ({ body: { response: '' } });
    const empty = await chat({ agent_token: agent.agent_token, message: 'hello', session_id: res.body.session_id });
    expect(empty.status).toBe(200);
    expect(empty.body.response).toBe('');
  });
});

describe('webhook failures → 502 upstream_error with an error record', () => {
  async function expectUpstreamFailure(
    agent: Agent,
    expected: { type: string; status_code: number | null; minLatencyMs?: number },
    repair: () => Promise<unknown> = async () => undefined,
  ): Promise<void> {
    const res = await chat({ agent_token: agent.agent_token, message: 'will this fail?', user_id: 'u-9' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({
      code: 'upstream_error',
      request_id: expect.any(String),
      message: expect.any(String),
    });
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    const { error_id: errorId, session_id: sessionId } = res.body.error.details as {
      error_id: string;
      session_id: string;
    };
    expect(errorId).toMatch(/^err_/);
    expect(sessionId).toMatch(/^ses_/);

    const record = await p.request('GET', `/admin/v1/errors/${errorId}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      id: errorId,
      type: expected.type,
      agent_id: agent.id,
      session_id: sessionId,
      status_code: expected.status_code,
      status: 'open',
    });
    expect(record.body.latency_ms).toEqual(expect.any(Number));
    expect(record.body.latency_ms).toBeGreaterThanOrEqual(expected.minLatencyMs ?? 0);
    const listed = await p.request('GET', `/admin/v1/errors?agent_id=${agent.id}&type=${expected.type}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([errorId]);

    // The failed turn is kept in the conversation (the user's message and a failed answer) and
    // does not count as an answered turn. Nothing was answered in the session, so it failed: it
    // has ended (`error`) and is not counted live.
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'error', turns: 0, user_id: 'u-9' });
    expect((await p.request('GET', '/admin/v1/sessions/stats/overview')).body).toMatchObject({ active: 0, ended: 1 });
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.messages.map((m: { role: string; status: string }) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['agent', 'failed'],
    ]);
    expect(conversation.body.messages[1].error_id).toBe(errorId);

    await repair();
    webhook.respond = () => ({ body: { response: 'back again' } });
    const again = await chat({ agent_token: agent.agent_token, message: 'and now?', session_id: sessionId });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('session_ended');
    const next = await chat({ agent_token: agent.agent_token, message: 'and now?' });
    expect(next.status).toBe(200);
    expect(next.body.response).toBe('back again');
    expect(next.body.session_id).not.toBe(sessionId);
  }

  it('a failure after an answered turn leaves the session open, and the next message goes on in it', async () => {
    const agent = await passthroughAgent();
    const first = await chat({ agent_token: agent.agent_token, message: 'hello' });
    expect(first.status).toBe(200);
    const sessionId = first.body.session_id as string;
    webhook.respond = () => ({ status: 500, body: {} });
    const failed = await chat({ agent_token: agent.agent_token, message: 'and this?', session_id: sessionId });
    expect(failed.status).toBe(502);
    expect(failed.body.error.details.session_id).toBe(sessionId);
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'active', end_reason: null, turns: 1 });
    webhook.respond = () => ({ body: { response: 'back again' } });
    const next = await chat({ agent_token: agent.agent_token, message: 'and now?', session_id: sessionId });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ session_id: sessionId, response: 'back again' });
  });

  it('non-2xx status', async () => {
    webhook.respond = () => ({ status: 500, body: { response: 'this text must not be used' } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_http_error', status_code: 500 });
  });

  it('4xx status (e.g. the operator rejects the key)', async () => {
    webhook.respond = () => ({ status: 401, body: { error: 'bad key' } });
    await expectUpstreamFailure(await passthroughAgent({ webhook_api_key: 'k' }), {
      type: 'webhook_http_error',
      status_code: 401,
    });
  });

  it('timeout (agent webhook_timeout_ms)', async () => {
    webhook.respond = () => ({ delayMs: 3_000, body: { response: 'too late' } });
    await expectUpstreamFailure(await passthroughAgent({ webhook_timeout_ms: 300 }), {
      type: 'webhook_timeout',
      status_code: null,
      minLatencyMs: 250,
    });
  });

  it('2xx without a string `response`', async () => {
    webhook.respond = () => ({ body: { answer: 'wrong field' } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_invalid_response', status_code: 200 });
  });

  it('2xx with a non-string `response`', async () => {
    webhook.respond = () => ({ body: { response: 42 } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_invalid_response', status_code: 200 });
  });

  it('2xx with a JSON body that is not an object', async () => {
    webhook.respond = () => ({ body: 'null' });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_invalid_response', status_code: 200 });
  });

  it('2xx with invalid JSON', async () => {
    webhook.respond = () => ({ status: 200, body: 'OK, got it', headers: { 'Content-Type': 'text/plain' } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_invalid_response', status_code: 200 });
  });

  it('2xx with a reply over 256 KiB', async () => {
    webhook.respond = () => ({ body: { response: 'x'.repeat(300 * 1024) } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_invalid_response', status_code: 200 });
  });

  it('nothing listening at webhook_url', async () => {
    const port = await freePort();
    const agent = await passthroughAgent({ webhook_url: `http://127.0.0.1:${port}/hook` });
    await expectUpstreamFailure(agent, { type: 'webhook_network_error', status_code: null }, () =>
      p.request('PATCH', `/admin/v1/agents/${agent.id}`, { body: { webhook_url: `${webhook.url}/hook` } }),
    );
  });

  // Issue 8: end users never learn the operator's network; the error record keeps the detail.
  for (const [what, url, detail] of [
    ['a refused connection (127.0.0.1:9)', 'http://127.0.0.1:9/hook', /ECONNREFUSED|127\.0\.0\.1/],
    [
      'a host that does not resolve',
      'http://parley-no-such-host.invalid/hook',
      /ENOTFOUND|EAI_AGAIN|parley-no-such-host/,
    ],
  ] as const) {
    it(`${what}: the 502 says the webhook did not answer, the error record says why`, async () => {
      const agent = await passthroughAgent({ webhook_url: url });
      const res = await chat({ agent_token: agent.agent_token, message: 'anyone there?' });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toBe("the agent's webhook did not answer");
      const body = JSON.stringify(res.body);
      for (const leak of ['127.0.0.1', ':9', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'invalid', 'getaddrinfo'])
        expect(body).not.toContain(leak);
      const record = await p.request('GET', `/admin/v1/errors/${res.body.error.details.error_id}`);
      expect(record.body).toMatchObject({ type: 'webhook_network_error', details: { webhook_url: url } });
      expect(record.body.message).toMatch(detail);
    });
  }

  it('a redirect is not followed: it is a non-2xx answer', async () => {
    webhook.respond = () => ({ status: 302, headers: { Location: `${webhook.url}/elsewhere` } });
    await expectUpstreamFailure(await passthroughAgent(), { type: 'webhook_http_error', status_code: 302 });
    expect(webhook.requests.map((r) => r.path)).not.toContain('/elsewhere');
  });
});

describe('400 webhook_not_configured', () => {
  it('passthrough agent without webhook_url: no session, no webhook call, no error record', async () => {
    const agent = await passthroughAgent({ webhook_url: null });
    const res = await chat({ agent_token: agent.agent_token, message: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'webhook_not_configured', request_id: expect.any(String) });
    expect(webhook.requests).toHaveLength(0);
    const sessions = await p.request('GET', `/admin/v1/sessions?agent_id=${agent.id}`);
    expect(sessions.body.data).toEqual([]);
    const errors = await p.request('GET', `/admin/v1/errors?agent_id=${agent.id}`);
    expect(errors.body.data).toEqual([]);
  });
});
