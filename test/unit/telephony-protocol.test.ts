import { describe, expect, it } from 'vitest';
import { decodeBase64, decodeInbound, streamCloseCodes } from '../../src/realtime/telephony/media-stream-protocol.js';
import { isTwilioSignatureValid, twilioSignature } from '../../src/realtime/telephony/twilio-signature.js';
import { sayAndHangUpTwiml, streamTwiml, twimlDocument } from '../../src/telephony/twilio/twiml.js';

// Twilio's published request-validation example (its SDKs' own tests use it).
const token = '12345';
const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const params = () =>
  new URLSearchParams({
    CallSid: 'CA1234567890ABCDE',
    Caller: '+14158675309',
    Digits: '1234',
    From: '+14158675309',
    To: '+18005551212',
  });

describe('X-Twilio-Signature', () => {
  it("reproduces Twilio's documented signature", () => {
    expect(twilioSignature(token, url, params())).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('signs a repeated parameter by its distinct values, sorted, as Twilio does', () => {
    const repeated = new URLSearchParams([
      ['Sid', 'CA123'],
      ['SidAccount', 'AC123'],
      ['Digits', '5678'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ]);
    expect(twilioSignature(token, url, repeated)).toBe('IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  });

  it('fails for a missing signature or any changed input', () => {
    const good = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';
    expect(isTwilioSignatureValid(token, url, params(), good)).toBe(true);
    expect(isTwilioSignatureValid(token, url, params(), undefined)).toBe(false);
    expect(isTwilioSignatureValid('54321', url, params(), good)).toBe(false);
    expect(isTwilioSignatureValid(token, `${url}&x=1`, params(), good)).toBe(false);
    const changed = params();
    changed.set('Digits', '9999');
    expect(isTwilioSignatureValid(token, url, changed, good)).toBe(false);
    expect(isTwilioSignatureValid(token, url, params(), 'short')).toBe(false);
  });
});

describe('TwiML', () => {
  it('escapes the Stream URL and parameters', () => {
    expect(twimlDocument(streamTwiml('wss://h/x?a=1&b=2', { token: 'a"b<c' }))).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://h/x?a=1&amp;b=2"><Parameter name="token" value="a&quot;b&lt;c"/></Stream></Connect></Response>',
    );
    expect(sayAndHangUpTwiml('Tom & Jerry')).toContain('<Say>Tom &amp; Jerry</Say><Hangup/>');
  });
});

describe('Media Streams messages', () => {
  it('reads a start message as Twilio sends it', () => {
    const start = {
      event: 'start',
      sequenceNumber: '1',
      start: {
        accountSid: 'AC00000000000000000000000000000000',
        streamSid: 'MZ1',
        callSid: 'CA1',
        tracks: ['inbound'],
        customParameters: { session_id: 'ses_1', token: 't' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
      streamSid: 'MZ1',
    };
    const decoded = decodeInbound(JSON.stringify(start));
    expect(decoded.ok && decoded.message.event === 'start' && decoded.message.start.customParameters).toEqual({
      session_id: 'ses_1',
      token: 't',
    });
  });

  it('refuses bad JSON and unknown events with 1007', () => {
    expect(decodeInbound('{nope')).toMatchObject({ ok: false, code: streamCloseCodes.invalidData });
    expect(decodeInbound('{"event":"dance"}')).toMatchObject({ ok: false, code: 1007 });
    expect(decodeInbound('{"event":"media","streamSid":"MZ1"}')).toMatchObject({ ok: false, code: 1007 });
  });

  it('decodes strict base64 only', () => {
    expect(decodeBase64('/w==')).toEqual(Buffer.from([0xff]));
    expect(decodeBase64('not base64!')).toBeNull();
    expect(decodeBase64('abc')).toBeNull();
  });
});
