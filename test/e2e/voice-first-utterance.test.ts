/**
 * A fresh process's first call is heard: the real entry point in a child process per case (cold
 * decoders, nothing loaded before the call), the real Silero VAD and pocketsphinx, flite speech at
 * real-time pace over the WebSocket transport (16 kHz) and over a fake Twilio's phone line (μ-law
 * 8 kHz), with and without the agent's expected phrases. The operator's webhook is a real HTTP
 * server; what reaches it is the assertion.
 *
 * Before the fix, the phone call with expected phrases lost this utterance on every fresh process:
 * its first decoder normalised the line against a wide-band cepstral mean and its grammar heard no
 * phrase, which the session took for "nothing said" (no webhook call, no record).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, type AdminClient } from '../support/admin-client.js';
import { eventually } from '../support/eventually.js';
import { FakePhone, placeCall } from '../support/fake-carrier.js';
import { fliteScript } from '../support/flite-speech.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParleyProcess, type ParleyProcess } from '../support/main-process.js';
import { testAdminKey } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';
import { wordErrorRate } from '../support/wer.js';

const authToken = 'twilio-auth-token-for-e2e';
const number = '+15105550188';
const said = 'i would like to book a table, please';
const phrase = 'i would like to book a table please';
const menu = [phrase, 'what time do you open tomorrow', 'speak to a person'];

let redis: TestRedis;
let webhook: HttpReceiver;
let main: ParleyProcess | undefined;
const closers: (() => void)[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Sure.' } }));
});
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  main?.child.kill('SIGKILL');
  await main?.exited;
  main = undefined;
  await redis.flush();
});
afterAll(async () => {
  await webhook?.close();
  await redis?.close();
});

/** A fresh Parley process and a passthrough agent on pocketsphinx, nothing else done on it yet. */
async function freshAgent(expectedPhrases: string[]): Promise<{ api: AdminClient; url: string; token: string }> {
  main = await startParleyProcess(redis, { TWILIO_AUTH_TOKEN: authToken });
  const api = adminClient(main.url, testAdminKey);
  const preset = await api.request('POST', '/admin/v1/presets', {
    body: {
      name: 'offline speech',
      stt: { provider: 'pocketsphinx', model: 'en-us', language: 'en-US' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const agent = await api.request('POST', '/admin/v1/agents', {
    body: {
      name: 'first call',
      mode: 'passthrough',
      webhook_url: webhook.url,
      preset_id: preset.body.id,
      greeting: null,
      phone_numbers: [number],
      expected_phrases: expectedPhrases,
      expected_phrases_only: expectedPhrases.length > 0, // a grammar: the phrase heard exactly
    },
  });
  expect(agent.status).toBe(201);
  return { api, url: main.url, token: agent.body.agent_token as string };
}

/** The process's first call, speaking `said` once: the session's id. */
async function firstCall(transport: 'websocket' | 'twilio', target: { api: AdminClient; url: string; token: string }) {
  const speech = fliteScript('slt', 300, said, 1500);
  if (transport === 'twilio') {
    const phone = await FakePhone.connect(
      await placeCall({ parleyUrl: target.url, authToken, from: '+14155550123', to: number }),
    );
    closers.push(() => phone.close());
    phone.start();
    await phone.speak(speech);
    return phone.parameters['session_id']!;
  }
  const res = await target.api.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: target.token, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  closers.push(() => client.close());
  await client.untilEvent('ready');
  await client.stream({ samples: speech, sampleRate: 16_000 });
  return res.body.session_id as string;
}

const heardIn = (sessionId: string) =>
  webhook.requests
    .map((r) => r.json as { session_id: string; data: { transcript: string } })
    .filter((b) => b.session_id === sessionId)
    .map((b) => b.data.transcript);

describe("a fresh process's first utterance reaches the webhook", () => {
  for (const transport of ['twilio', 'websocket'] as const) {
    it(`${transport}, with expected phrases: heard exactly`, async () => {
      const sessionId = await firstCall(transport, await freshAgent(menu));
      const heard = await eventually(
        () => heardIn(sessionId),
        (t) => t.length > 0,
        { timeoutMs: 10_000, what: 'the webhook call for the first utterance' },
      );
      expect(heard).toEqual([phrase]);
    });

    it(`${transport}, without expected phrases: heard (the language model's words)`, async () => {
      const sessionId = await firstCall(transport, await freshAgent([]));
      const heard = await eventually(
        () => heardIn(sessionId),
        (t) => t.length > 0,
        { timeoutMs: 10_000, what: 'the webhook call for the first utterance' },
      );
      expect(heard).toHaveLength(1);
      expect(heard[0]!.split(' ').length).toBeGreaterThanOrEqual(4);
      // the free language model's words are rough (README: Phone calls), reported rather than bounded
      console.log(
        `${transport}, first utterance, language model: "${heard[0]}" (WER ${wordErrorRate([{ said: phrase, heard: heard[0]! }]).toFixed(2)})`,
      );
    });
  }
});
