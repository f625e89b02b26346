/**
 * Phone calls through Twilio Media Streams, without speech: the signed voice webhook (403 on a bad
 * or missing signature, a polite TwiML refusal for an unknown number), the number → agent index
 * (unique, kept in step with agent writes), and the stream's handling of malformed messages.
 */
import { describe, expect, it } from 'vitest';
import { unknownNumberMessage } from '../../src/http/routes/telephony/telephony.routes.js';
import { placeCall, FakePhone, streamOf } from '../support/fake-carrier.js';
import { createAgent } from '../support/agents.js';
import { eventually } from '../support/eventually.js';
import { parleyForFile } from '../support/parley.js';

const authToken = 'twilio-auth-token-for-tests';
const bed = parleyForFile({ TWILIO_AUTH_TOKEN: authToken });
const number = '+15105550100';
const caller = '+14155550199';

async function agentOnNumber(settings: Record<string, unknown> = {}) {
  return createAgent(bed.p, { phone_numbers: [number], greeting: null, ...settings });
}

const call = (extra: Partial<Parameters<typeof placeCall>[0]> = {}) =>
  placeCall({ parleyUrl: bed.p.url, authToken, from: caller, to: number, ...extra });

describe('the voice webhook', () => {
  it('answers a known number with TwiML connecting a twilio session for the call', async () => {
    const agent = await agentOnNumber();
    const answer = await call();
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/xml/);
    const stream = streamOf(answer.body);
    expect(stream?.url).toBe(`${bed.p.url.replace('http:', 'ws:')}/telephony/v1/twilio/media`);
    const sessionId = stream!.parameters['session_id']!;
    expect(stream!.parameters['token']).toMatch(/^ey/);
    const session = await bed.p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({
      agent_id: agent.id,
      type: 'voice',
      transport: 'twilio',
      status: 'active',
      user_id: caller,
      metadata: { call_sid: answer.callSid, from: caller, to: number },
    });
  });

  it("leaves user_id null when the agent does not take the caller's number", async () => {
    await agentOnNumber({ phone_caller_id_as_user: false });
    const stream = streamOf((await call()).body)!;
    const session = await bed.p.request('GET', `/admin/v1/sessions/${stream.parameters['session_id']}`);
    expect(session.body.user_id).toBeNull();
  });

  it('refuses a call to a number no agent has politely, in TwiML', async () => {
    await agentOnNumber();
    const answer = await call({ to: '+15105550999' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${unknownNumberMessage}</Say><Hangup/></Response>`,
    );
  });

  it('is 403 with an error record for a wrong or missing signature, or another account', async () => {
    await agentOnNumber();
    const wrong = await call({ signature: 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' });
    const missing = await call({ signature: null });
    const otherToken = await placeCall({ parleyUrl: bed.p.url, authToken: 'not-ours', from: caller, to: number });
    for (const res of [wrong, missing, otherToken]) {
      expect(res.status).toBe(403);
      const body = JSON.parse(res.body) as { error: { code: string; request_id: string } };
      expect(body.error).toMatchObject({ code: 'telephony_bad_signature', request_id: expect.any(String) });
    }
    const errors = await bed.p.request('GET', '/admin/v1/errors?type=telephony_bad_signature');
    expect(errors.body.data).toHaveLength(3);
    expect(errors.body.data[0].details.url).toBe(`${bed.p.url}/telephony/v1/twilio/voice`);
    const sessions = await bed.p.request('GET', '/admin/v1/sessions');
    expect(sessions.body.data).toEqual([]);
  });
});

describe('phone numbers of agents', () => {
  it('belong to one agent: 409 for a number another has; deleting the agent frees it', async () => {
    const first = await agentOnNumber();
    const clash = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'b', phone_numbers: [number] } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('conflict');
    const second = await createAgent(bed.p, { phone_numbers: ['+15105550101'] });
    const patch = await bed.p.request('PATCH', `/admin/v1/agents/${second.id}`, {
      body: { phone_numbers: ['+15105550101', number] },
    });
    expect(patch.status).toBe(409);
    // moving a number: the first agent lets go of it, the second takes it
    await bed.p.request('PATCH', `/admin/v1/agents/${first.id}`, { body: { phone_numbers: [] } });
    expect((await call({ to: number })).body).toContain('<Say>');
    const moved = await bed.p.request('PATCH', `/admin/v1/agents/${second.id}`, {
      body: { phone_numbers: [number] },
    });
    expect(moved.status).toBe(200);
    expect(streamOf((await call({ to: number })).body)).not.toBeNull();
    expect(streamOf((await call({ to: '+15105550101' })).body)).toBeNull();
    expect((await bed.p.request('DELETE', `/admin/v1/agents/${second.id}`)).status).toBe(204);
    expect((await call({ to: number })).body).toContain('<Say>');
    expect((await createAgent(bed.p, { phone_numbers: [number] })).phone_numbers).toEqual([number]);
  });

  it('are E.164 and listed once', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', {
      body: { name: 'x', phone_numbers: ['5105550100', '+15105550100', '+15105550100'] },
    });
    expect(res.status).toBe(400);
    expect((res.body.error.details as { path: string }[]).map((d) => d.path).sort()).toEqual([
      'body.phone_numbers',
      'body.phone_numbers.0',
    ]);
  });
});

describe('the media stream', () => {
  /** A call's stream, open (`connected` sent); the number's agent is created by the first call of a test. */
  async function connected(again = false) {
    if (!again) await agentOnNumber();
    return FakePhone.connect(await call());
  }

  it('closes 1008 on media before start', async () => {
    const phone = await connected();
    phone.media('/w==');
    await phone.closed();
    expect(phone.closeCode).toBe(1008);
  });

  it('closes 1007 on a message that is not JSON, or an unknown event', async () => {
    const a = await connected();
    a.sendRaw('{not json');
    await a.closed();
    expect(a.closeCode).toBe(1007);
    const b = await connected(true);
    b.send({ event: 'dance', streamSid: b.streamSid });
    await b.closed();
    expect(b.closeCode).toBe(1007);
  });

  it('closes 4401 on a start without a valid token, and 1007 on bad base64 audio', async () => {
    const a = await connected();
    a.start({ session_id: a.parameters['session_id']!, token: 'forged' });
    await a.closed();
    expect(a.closeCode).toBe(4401);
    const b = await connected(true);
    b.start();
    const sessionId = b.parameters['session_id']!;
    b.media('/w==');
    b.media('***not base64***');
    await b.closed();
    expect(b.closeCode).toBe(1007);
    // the stream closing is the caller gone: the session ends with its records
    const ended = await eventually(
      async () => (await bed.p.request('GET', `/admin/v1/sessions/${sessionId}`)).body,
      (s: { status: string; end_reason: string | null }) => s.status === 'ended',
    );
    expect(ended.end_reason).toBe('client_hangup');
  });
});
