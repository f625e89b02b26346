import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client.js';
import { CarrierError } from '../../src/telephony/twilio/rest-error.js';
import { startFakeCarrierRest, type FakeCarrierRest } from '../support/fake-carrier-rest.js';

/** The Twilio REST client against a fake Twilio on real HTTP: paths, Basic auth, form fields, errors. */

let fake: FakeCarrierRest;
let client: TwilioRestClient;
const callSid = 'CA0123456789abcdef0123456789abcdef';

beforeAll(async () => {
  fake = await startFakeCarrierRest();
  client = new TwilioRestClient({ accountSid: fake.accountSid, authToken: fake.authToken, baseUrl: fake.url });
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.stallMs = 0;
});

const callPath = () => `/2010-04-01/Accounts/${fake.accountSid}/Calls/${callSid}.json`;

describe('call control', () => {
  it('hangs up with Status=completed on the call resource', async () => {
    await client.hangUp(callSid);
    expect(fake.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: callPath(), form: { Status: 'completed' } }),
    ]);
  });

  it('transfers to a number (bare or tel:) with <Dial><Number> and to a SIP URI with <Dial><Sip>, escaped', async () => {
    await client.transfer(callSid, '+15105550100');
    await client.transfer(callSid, 'tel:+4930123456');
    await client.transfer(callSid, 'sip:desk@pbx.example.com;transport=tls&x=1');
    expect(fake.requests.map((r) => [r.path, r.form])).toEqual([
      [callPath(), { Twiml: '<Response><Dial><Number>+15105550100</Number></Dial></Response>' }],
      [callPath(), { Twiml: '<Response><Dial><Number>+4930123456</Number></Dial></Response>' }],
      [
        callPath(),
        { Twiml: '<Response><Dial><Sip>sip:desk@pbx.example.com;transport=tls&amp;x=1</Sip></Dial></Response>' },
      ],
    ]);
  });

  it('refuses a transfer target that is neither E.164 nor SIP, and a malformed call SID, before any request', async () => {
    await expect(client.transfer(callSid, '0151 555')).rejects.toThrow(/E\.164 number .* or a SIP URI/);
    await expect(client.hangUp('CA../../Accounts')).rejects.toThrow(/not a Twilio call SID/);
    expect(fake.requests).toEqual([]);
  });
});

describe('outbound calls', () => {
  it('creates a call with To, From, Twiml and the status callback fields', async () => {
    const call = await client.createCall({
      to: '+15105550100',
      from: '+15105550199',
      twiml: '<Response><Say>Hi</Say></Response>',
      statusCallback: 'https://parley.example.com/status',
      ringTimeoutS: 30,
    });
    expect(call).toEqual({ sid: expect.stringMatching(/^CA[0-9a-f]{32}$/), status: 'queued' });
    const [request] = fake.requests;
    expect(request?.path).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Calls.json`);
    expect(request?.form).toMatchObject({
      To: '+15105550100',
      From: '+15105550199',
      Twiml: '<Response><Say>Hi</Say></Response>',
      StatusCallback: 'https://parley.example.com/status',
      StatusCallbackMethod: 'POST',
      Timeout: '30',
    });
    expect(request?.all.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
  });

  it('takes exactly one of twiml and url', async () => {
    await expect(client.createCall({ to: '+15105550100', from: '+15105550199' })).rejects.toThrow(/exactly one/);
  });
});

describe('failures', () => {
  it("names Twilio's status, code and message for wrong credentials, and never the token", async () => {
    const wrong = new TwilioRestClient({
      accountSid: fake.accountSid,
      authToken: 'not-the-token-0000',
      baseUrl: fake.url,
    });
    const before = fake.unauthorized;
    const err = await wrong.hangUp(callSid).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CarrierError);
    expect((err as CarrierError).message).toBe('Twilio refused the request (HTTP 401, error 20003): Authenticate');
    expect((err as CarrierError).status).toBe(502);
    expect((err as CarrierError).details).toMatchObject({ carrier_status: 401, carrier_code: 20003 });
    expect(JSON.stringify(err) + String((err as Error).stack)).not.toContain('not-the-token-0000');
    expect(fake.unauthorized).toBe(before + 1);
  });

  it("passes on a refusal's message (an unverified number)", async () => {
    fake.failNext({ status: 400, code: 21219, message: 'The number +15105550100 is unverified.' });
    await expect(
      client.createCall({ to: '+15105550100', from: '+15105550199', url: 'https://x.example/a' }),
    ).rejects.toThrow('Twilio refused the request (HTTP 400, error 21219): The number +15105550100 is unverified.');
  });

  it('times out a Twilio that does not answer', async () => {
    fake.stallMs = 500;
    const slow = new TwilioRestClient({
      ...{ accountSid: fake.accountSid, authToken: fake.authToken },
      baseUrl: fake.url,
      timeoutMs: 100,
    });
    await expect(slow.hangUp(callSid)).rejects.toThrow(/no answer within 100 ms/);
  });

  it('says an unreachable Twilio is unreachable', async () => {
    const gone = await startFakeCarrierRest(fake.accountSid, fake.authToken);
    await gone.close();
    const nowhere = new TwilioRestClient({ accountSid: fake.accountSid, authToken: fake.authToken, baseUrl: gone.url });
    await expect(nowhere.hangUp(callSid)).rejects.toThrow(/unreachable \(.*ECONNREFUSED/);
  });
});
