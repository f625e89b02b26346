import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { startFakeCarrierRest, type FakeCarrierRest } from '../support/fake-carrier-rest.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * POST /admin/v1/agents/{id}/calls against a fake Twilio REST API on real HTTP and a real Redis:
 * the call placed with TwiML that streams to Parley, its session, and every refusal.
 */

let redis: TestRedis;
let fake: FakeCarrierRest;
let p: TestParley;
let bare: TestParley;
let wrongToken: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  fake = await startFakeCarrierRest();
  const twilio = { TWILIO_ACCOUNT_SID: fake.accountSid, PARLEY_TWILIO_API_BASE_URL: fake.url };
  p = await startParley(redis, {
    ...twilio,
    TWILIO_AUTH_TOKEN: fake.authToken,
    PARLEY_PUBLIC_URL: 'https://parley.example.com/base',
  });
  wrongToken = await startParley(redis, { ...twilio, TWILIO_AUTH_TOKEN: 'wrong-token-0123456789' });
  bare = await startParley(redis);
});
afterAll(async () => {
  await Promise.all([p?.close(), bare?.close(), wrongToken?.close()]);
  await fake?.close();
  await redis?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('placing a call', () => {
  it('creates the call at Twilio with TwiML that connects it to a new voice session', async () => {
    const agent = await createAgent(p);
    const res = await p.request('POST', `/admin/v1/agents/${agent.id}/calls`, {
      body: { to: '+15105550100', from: '+15105550199', user_id: 'crm-42' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      call_sid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
      session_id: expect.stringMatching(/^ses_/),
      status: 'queued',
    });
    const [request] = fake.requests;
    expect(request?.path).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Calls.json`);
    expect(request?.form).toMatchObject({ To: '+15105550100', From: '+15105550199', Timeout: '50' }); // 60 s window
    const twiml = request?.form['Twiml'] ?? '';
    const stream =
      /^<Response><Connect><Stream url="([^"]+)"><Parameter name="session_id" value="([^"]+)"\/><Parameter name="token" value="([^"]+)"\/><\/Stream><\/Connect><\/Response>$/.exec(
        twiml,
      );
    expect(stream, twiml).not.toBeNull();
    expect(stream?.[1]).toBe('wss://parley.example.com/base/telephony/v1/twilio/media');
    expect(stream?.[2]).toBe(res.body.session_id);
    expect(stream?.[3]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/); // the media token, a JWT

    const session = await p.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
    expect(session.body).toMatchObject({
      agent_id: agent.id,
      type: 'voice',
      transport: 'twilio',
      status: 'active',
      user_id: 'crm-42',
      metadata: { direction: 'outbound', to: '+15105550100', from: '+15105550199' },
    });
  });

  it("calls from the agent's first phone number, with the number called as the user, by default", async () => {
    const agent = await createAgent(p, { phone_numbers: ['+15105550111', '+15105550122'] });
    const res = await p.request('POST', `/admin/v1/agents/${agent.id}/calls`, { body: { to: '+4930123456' } });
    expect(res.status).toBe(201);
    expect(fake.requests[0]?.form).toMatchObject({ To: '+4930123456', From: '+15105550111' });
    const session = await p.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
    expect(session.body.user_id).toBe('+4930123456');
  });
});

describe('refusals', () => {
  it('lists every bad field at once', async () => {
    const agent = await createAgent(p);
    const res = await p.request('POST', `/admin/v1/agents/${agent.id}/calls`, {
      body: { to: '0151 555', from: '+0123', user_id: '', extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.extra',
      'body.from',
      'body.to',
      'body.user_id',
    ]);
    expect(fake.requests).toEqual([]);
  });

  it('needs a from when the agent has no phone number', async () => {
    const agent = await createAgent(p);
    const res = await p.request('POST', `/admin/v1/agents/${agent.id}/calls`, { body: { to: '+15105550100' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'body.from', message: expect.stringMatching(/phone_numbers/) }]);
  });

  it('is 404 for an unknown agent', async () => {
    const res = await p.request('POST', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000/calls', {
      body: { to: '+15105550100', from: '+15105550199' },
    });
    expect(res.status).toBe(404);
    expect(fake.requests).toEqual([]);
  });

  it("is 502 carrier_error with Twilio's message when Twilio refuses, and ends the session it opened", async () => {
    const agent = await createAgent(wrongToken);
    const res = await wrongToken.request('POST', `/admin/v1/agents/${agent.id}/calls`, {
      body: { to: '+15105550100', from: '+15105550199' },
    });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({
      code: 'carrier_error',
      message: 'Twilio refused the request (HTTP 401, error 20003): Authenticate',
      details: { carrier: 'twilio', carrier_status: 401, carrier_code: 20003 },
    });
    expect(JSON.stringify(res.body)).not.toContain('wrong-token-0123456789');
    const sessions = await wrongToken.request('GET', `/admin/v1/sessions?agent_id=${agent.id}`);
    expect(sessions.body.data).toEqual([expect.objectContaining({ status: 'ended', end_reason: 'error' })]);
  });

  it('is 503 telephony_not_configured without a Twilio account', async () => {
    const agent = await createAgent(bare);
    const res = await bare.request('POST', `/admin/v1/agents/${agent.id}/calls`, {
      body: { to: '+15105550100', from: '+15105550199' },
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('telephony_not_configured');
    expect(res.body.error.message).toMatch(/TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN/);
  });
});
