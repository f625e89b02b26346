/**
 * The Media Streams contract for what Parley sends: every outbound `media` message is one 20 ms
 * frame, exactly 160 μ-law bytes, whatever the sizes of the speech behind it (espeak's sentences,
 * the resampler's output, audio resent after a pause). A whole call through the fake Twilio: a
 * multi-sentence greeting, several answers, and a barge-in that clears an answer mid-sentence,
 * then the answer to the interruption.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakePhone, placeCall } from '../support/fake-carrier.js';
import { fliteScript } from '../support/flite-speech.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

const authToken = 'twilio-auth-token-for-frames-e2e';
const number = '+15105557001';
const greeting = 'Hello, and thanks for calling the restaurant. How can I help you today?';
const answers = [
  'We open at nine. The kitchen closes at half past nine.',
  'Yes, a table for four. Which evening suits you?',
  'Sure. We open at nine in the morning and close at ten in the evening on every day of the week, including public holidays, and the kitchen serves until half past nine.',
  'Of course. Go ahead, I am listening.',
];

let redis: TestRedis;
let webhook: HttpReceiver;
let p: TestParley;
let phone: FakePhone | undefined;

beforeAll(async () => {
  redis = await TestRedis.start();
  let turn = 0;
  webhook = await HttpReceiver.start(() => ({ body: { response: answers[Math.min(turn++, answers.length - 1)] } }));
  p = await startParley(redis, { TWILIO_AUTH_TOKEN: authToken });
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'phone',
      stt: { provider: 'pocketsphinx', model: 'en-us', language: 'en-US' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'framed phone',
      mode: 'passthrough',
      webhook_url: webhook.url,
      preset_id: preset.body.id as string,
      greeting,
      phone_numbers: [number],
    },
  });
  expect(agent.status).toBe(201);
});
afterAll(async () => {
  phone?.close();
  await p?.close();
  await webhook?.close();
  await redis?.close();
});

/** End-of-answer marks the phone has echoed: answers played to their end. */
const answersPlayed = (phone: FakePhone) => phone.echoedMarks.filter((name) => name.endsWith('-end')).length;

it('every outbound media message is one 20 ms frame: 160 μ-law bytes, across a greeting, answers and a barge-in', async () => {
  const call = await FakePhone.connect(
    await placeCall({ parleyUrl: p.url, authToken, from: '+14155550142', to: number }),
  );
  phone = call;
  call.start();
  await eventually(
    () => answersPlayed(call),
    (n) => n === 1,
    { timeoutMs: 30_000, what: 'the greeting played to its end mark' },
  );
  for (const [k, said] of ['what time do you open tomorrow', 'can i book a table for four'].entries()) {
    await call.speak(fliteScript('slt', 300, said, 1500));
    await eventually(
      () => answersPlayed(call),
      (n) => n === k + 2,
      { timeoutMs: 30_000, what: `answer ${k + 1} played to its end mark` },
    );
  }
  // the long answer, cut by the caller mid-sentence; the interruption is answered in turn
  const before = call.count('media');
  await call.speak(fliteScript('slt', 300, 'when do you open', 1500));
  await eventually(
    () => call.count('media') - before,
    (n) => n > 25,
    { timeoutMs: 30_000, what: 'the long answer playing' },
  );
  await call.speak(fliteScript('rms', 'wait a moment please i have another question', 800));
  await eventually(
    () => call.count('clear'),
    (n) => n >= 1,
    { timeoutMs: 10_000, what: 'the barge-in clear' },
  );
  await eventually(
    () => answersPlayed(call),
    (n) => n === 4,
    { timeoutMs: 30_000, what: 'the answer to the interruption played to its end mark' },
  );

  const media = call.received.flatMap((r) => (r.event === 'media' ? [r.bytes] : []));
  expect(media.length).toBeGreaterThan(200);
  expect(media.filter((bytes) => bytes !== 160)).toEqual([]);
  // every payload decoded to 160 samples (what the phone played)
  expect(call.heard.every((frame) => frame.length === 160)).toBe(true);
}, 180_000);
