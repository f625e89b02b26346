/**
 * Phone calls end to end through real protocol bytes: a fake Twilio places a signed call, reads the
 * TwiML, opens the Media Stream and speaks flite speech as 8 kHz μ-law at real-time pace; the real
 * VAD and pocketsphinx hear it, the operator's webhook (a real HTTP server) answers, espeak's
 * speech comes back as μ-law `media` with `mark`s the phone echoes as it plays them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakePhone, placeCall } from '../support/fake-carrier.js';
import { fliteScript } from '../support/flite-speech.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { wordErrorRate } from '../support/wer.js';

const authToken = 'twilio-auth-token-for-e2e';
const caller = '+14155550123';
const longAnswer =
  'Sure. We open at nine in the morning and close at ten in the evening on every day of the week, including public holidays, and the kitchen serves until half past nine.';

/** The transport's mark interval, and its μ-law bytes (8 per ms). */
const markMs = 200;
const markBytes = markMs * 8;

let redis: TestRedis;
let webhook: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;
let presetId: string;
let numbers = 0;
const phones: FakePhone[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Sure.' } }));
  events = await HttpReceiver.start(() => ({ status: 200, body: {} }));
  p = await startParley(redis, { TWILIO_AUTH_TOKEN: authToken });
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'phone',
      stt: { provider: 'pocketsphinx', model: 'en-us', language: 'en-US' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  presetId = preset.body.id as string;
});
afterEach(() => {
  for (const phone of phones.splice(0)) phone.close();
});
afterAll(async () => {
  await p?.close();
  await webhook?.close();
  await events?.close();
  await redis?.close();
});

/** A passthrough agent on a fresh number, called and streaming (`start` sent). */
async function call(answer = 'Sure.', expectedPhrases: string[] = []) {
  const number = `+1510555${String(1000 + numbers++)}`;
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'phone',
      mode: 'passthrough',
      webhook_url: `${webhook.url}/${number.slice(1)}`,
      events_url: events.url,
      preset_id: presetId,
      greeting: null,
      phone_numbers: [number],
      expected_phrases: expectedPhrases,
      expected_phrases_only: expectedPhrases.length > 0, // a phone menu: its phrases alone
    },
  });
  expect(agent.status).toBe(201);
  webhook.respond = (req) => ({ body: { response: req.path.endsWith(number.slice(1)) ? answer : 'Sure.' } });
  const phone = await FakePhone.connect(await placeCall({ parleyUrl: p.url, authToken, from: caller, to: number }));
  phones.push(phone);
  phone.start();
  return { phone, sessionId: phone.parameters['session_id']! };
}

const transcriptsOf = (sessionId: string) =>
  webhook.requests
    .map((r) => r.json as { session_id: string; data: { transcript: string; user_id: string | null } })
    .filter((b) => b.session_id === sessionId);

const eventsOf = (sessionId: string, type: string) =>
  events.requests
    .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
    .filter((e) => e.session_id === sessionId && e.type === type);

const sessionOf = async (sessionId: string) =>
  (await p.request('GET', `/admin/v1/sessions/${sessionId}`)).body as { status: string; end_reason: string | null };

describe('a phone call through Twilio Media Streams', () => {
  it('answers a spoken turn: μ-law media in 20 ms frames, marks echoed as played; stop ends the session', async () => {
    const said = 'what time do you open tomorrow';
    const { phone, sessionId } = await call('Sure.', [said, 'book a table', 'speak to a person']);
    await phone.speak(fliteScript('slt', 300, said, 1500));
    const turns = await eventually(
      () => transcriptsOf(sessionId),
      (t) => t.length === 1,
      { timeoutMs: 30_000, what: 'the webhook call' },
    );
    // Telephone-band speech on pocketsphinx's 16 kHz model: free-form it misses about half the
    // words of this sentence (README, Phone calls); a phone menu's grammar hears it exactly.
    expect(wordErrorRate([{ said, heard: turns[0]!.data.transcript }])).toBe(0);
    expect(turns[0]!.data.user_id).toBe(caller);
    // the answer comes back as μ-law media, each one 20 ms frame, and the end-of-answer mark is echoed once played
    await eventually(
      () => phone.echoedMarks,
      (m) => m.some((name) => name.endsWith('-end')),
      { timeoutMs: 30_000, what: 'the answer played to its end mark' },
    );
    const media = phone.received.filter((r) => r.event === 'media');
    expect(media.length).toBeGreaterThan(5);
    for (const m of media) expect(m.bytes).toBe(160);
    expect(phone.heard.some((frame) => frame.some((s) => Math.abs(s) > 1000))).toBe(true);
    const sentMarks = phone.received.flatMap((r) => (r.event === 'mark' ? [r.name] : []));
    expect(phone.echoedMarks).toEqual(sentMarks);
    expect(phone.count('clear')).toBe(0);

    const start = await eventually(
      () => eventsOf(sessionId, 'session_start'),
      (e) => e.length === 1,
    );
    expect(start[0]!.data).toMatchObject({
      transport: 'twilio',
      user_id: caller,
      metadata: { direction: 'inbound', call_sid: phone.callSid, from: caller },
    });
    phone.stop();
    await phone.closed();
    expect(phone.closeCode).toBe(1000);
    const ended = await eventually(
      () => sessionOf(sessionId),
      (s) => s.status === 'ended',
    );
    expect(ended.end_reason).toBe('client_hangup');
    await eventually(
      () => eventsOf(sessionId, 'session_end'),
      (e) => e.length === 1,
    );
  });

  it('barge-in clears what Twilio holds within one mark; the record keeps what the caller heard', async () => {
    const { phone, sessionId } = await call(longAnswer);
    await phone.speak(fliteScript('slt', 300, 'when do you open', 1500));
    await eventually(
      () => phone.count('media'),
      (n) => n > 25,
      { timeoutMs: 30_000, what: 'the answer playing' },
    );
    await phone.speak(fliteScript('rms', 'wait a moment please i have another question', 800));
    await eventually(
      () => phone.count('clear'),
      (n) => n >= 1,
      { timeoutMs: 10_000, what: 'a clear' },
    );
    expect((await sessionOf(sessionId)).status).toBe('active');
    // By message order: the answer's audio that went out between the caller's first voiced frame
    // and the clear. Reported, not asserted: it is mostly the VAD's reaction time (80-120 ms here on
    // an idle machine, one mark interval is 200 ms), which a loaded CI machine stretches.
    const onset = phone.speechOnsets.at(-1)!;
    const clear = phone.received.find((r) => r.event === 'clear');
    expect(clear?.event).toBe('clear');
    if (clear?.event === 'clear')
      console.log(
        `barge-in: ${((clear.atBytes - onset) / markBytes).toFixed(2)} mark intervals of audio before the clear`,
      );
    // the cut answer's playback is recorded as the marks counted it: no more than the phone played
    // (its `heard` bytes, 8 per ms) and one mark interval, far less than the time it took
    const played = await eventually(
      () => eventsOf(sessionId, 'audio_ready'),
      (e) => e.length === 1,
      { timeoutMs: 10_000, what: 'the playback record' },
    );
    expect(played[0]!.data['interrupted']).toBe(true);
    const durationMs = played[0]!.data['duration_ms'] as number;
    expect(durationMs).toBeGreaterThan(0);
    expect(durationMs).toBeLessThanOrEqual(phone.audioBytes.heard / 8 + markMs);
  });

  it('a hang-up mid-answer ends the session at once, records written and session_end queued', async () => {
    const { phone, sessionId } = await call(longAnswer);
    await phone.speak(fliteScript('slt', 300, 'when do you open', 1500));
    await eventually(
      () => phone.count('media'),
      (n) => n > 10,
      { timeoutMs: 30_000, what: 'the answer playing' },
    );
    phone.stop();
    await phone.closed();
    const ended = await eventually(
      () => sessionOf(sessionId),
      (s) => s.status === 'ended',
    );
    expect(ended.end_reason).toBe('client_hangup');
    const end = await eventually(
      () => eventsOf(sessionId, 'session_end'),
      (e) => e.length === 1,
    );
    expect(end[0]!.data).toMatchObject({ reason: 'client_hangup' });
  });

  it('speech the menu has no phrase for leaves an stt_error; the caller hears the fallback line, and is heard next time', async () => {
    const { phone, sessionId } = await call('Sure.', ['i would like to book a table please', 'speak to a person']);
    await phone.speak(fliteScript('slt', 300, 'i would like to book a table', 2500));
    const errors = await eventually(
      async () => (await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`)).body.data as unknown[],
      (e) => e.length === 1,
      { timeoutMs: 10_000, what: 'the stt_error record' },
    );
    expect(errors[0]).toMatchObject({ type: 'stt_error' });
    expect((errors[0] as { message: string }).message).toMatch(/the speech matches none of the expected phrases/);
    expect(transcriptsOf(sessionId)).toEqual([]);
    // Twilio has no channel for the `error`: the caller hears the agent's fallback line, then speaks again
    await eventually(
      async () => phone.audioBytes,
      (b) => b.received > 0 && b.played >= b.received,
      { timeoutMs: 10_000, what: 'the fallback line played' },
    );
    await phone.speak(fliteScript('slt', 'speak to a person', 1500));
    const turns = await eventually(
      () => transcriptsOf(sessionId),
      (t) => t.length === 1,
      { timeoutMs: 10_000, what: 'the next utterance' },
    );
    expect(turns[0]!.data.transcript).toBe('speak to a person');
  });

  it('keypad digits reach the webhook as typed text and the events_url as a dtmf event', async () => {
    const { phone, sessionId } = await call();
    phone.dtmf('4');
    phone.dtmf('2');
    phone.dtmf('#');
    const turns = await eventually(
      () => transcriptsOf(sessionId),
      (t) => t.length === 1,
      { timeoutMs: 10_000, what: 'the keypad turn' },
    );
    expect(turns[0]!.data.transcript).toBe('keypad: 42');
    // and the operator's events_url is told: a `dtmf` event with the call's id
    const dtmf = await eventually(
      () => eventsOf(sessionId, 'dtmf'),
      (e) => e.length === 1,
    );
    expect(dtmf[0]!.data).toEqual({ digits: '42', call_sid: phone.callSid });
  });
});
