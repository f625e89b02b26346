import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { FakeElevenLabs, type ConnectionPlan } from '../support/fake-elevenlabs.js';
import type { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiServer } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * An enhanced agent whose preset speaks with `elevenlabs`, over the WebSocket transport: the LLM's
 * streamed answer goes to a real WebSocket server speaking ElevenLabs' stream-input protocol
 * (150 ms to each generation's first audio) as it is produced, one socket per answer. Barge-in
 * closes that socket; a socket that fails mid-answer fails that turn alone.
 */

let redis: TestRedis;
let llm: HttpReceiver & { baseUrl: string };
let tts: FakeElevenLabs;
let p: TestParley;
let answer = '';
const plans = new Map<number, ConnectionPlan>();
const clients: VoiceClient[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  llm = await startOpenAiServer(() => answer);
  tts = await FakeElevenLabs.start({ firstByteDelayMs: 150, plan: (i) => plans.get(i) ?? {} });
  p = await startParley(redis, {
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    PARLEY_ELEVENLABS_API_KEY: tts.apiKey,
    PARLEY_ELEVENLABS_URL: tts.url,
  });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([llm?.close(), tts?.close()]);
  await redis?.close();
});

async function elevenLabsAgent(): Promise<string> {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'elevenlabs voice',
      llm: { provider: 'openai', model: 'test-model' },
      tts: { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice: 'JBFqnCBsd6RMkjVDRZzb' },
    },
  });
  expect(preset.status).toBe(201);
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'eleven', mode: 'enhanced', system_prompt: 'Be brief.', preset_id: preset.body.id },
  });
  expect(agent.status).toBe(201);
  return agent.body.agent_token as string;
}

async function connect(agentToken: string) {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agentToken, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string };
}

async function agentMessages(sessionId: string) {
  const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
  const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
  return (conversation.body.messages as { role: string; status: string; text: string }[]).filter(
    (m) => m.role === 'agent',
  );
}

it('speaks the streamed answer over one stream-input socket, flushed at the first clause', async () => {
  answer = 'Sure, we are open until nine tonight. Parking is free after six.';
  const { client, sessionId } = await connect(await elevenLabsAgent());
  const first = tts.connections.length;
  client.sendJson({ type: 'text', text: 'Are you open tonight?' });
  expect((await client.untilAnswer()).text).toBe(answer);
  expect(client.eventsOf('response').map((e) => e.text)).toEqual([
    'Sure,',
    'Sure, we are open until nine tonight.',
    answer,
    answer,
  ]);
  const start = await client.untilEvent('audio_start');
  await client.untilEvent('audio_end');
  expect(start.sample_rate).toBe(16_000);
  // 10 ms of the fake's tone per character it was given (with the spaces the words are sent with)
  const seconds = client.audio.reduce((n, a) => n + a.samples, 0) / 16_000;
  expect(seconds).toBeGreaterThan(0.6);

  expect(tts.connections.length - first).toBe(1);
  const conn = tts.connections[first]!;
  expect(conn.query).toMatchObject({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000' });
  const sent = conn.received.map((r) => r.message);
  expect(sent[0]).toEqual({ text: ' ' });
  // words as the LLM produced them; the first clause flushed on its own, then each sentence
  expect(sent.filter((m) => m['flush'] === true).length).toBe(3);
  const firstFlush = sent.findIndex((m) => m['flush'] === true);
  expect(
    sent
      .slice(1, firstFlush + 1)
      .map((m) => m['text'])
      .join('')
      .trim(),
  ).toBe('Sure,');
  expect(
    sent
      .slice(1)
      .map((m) => m['text'])
      .join(''),
  ).toContain('we are open until nine tonight. ');
  expect(sent.at(-1)).toEqual({ text: '' });
  expect(conn.generations[0]!.text.trim()).toBe('Sure,');
  expect(conn.closed).toMatchObject({ by: 'server', code: 1000 });
  await expect.poll(() => agentMessages(sessionId)).toEqual([expect.objectContaining({ text: answer })]);
  expect((await agentMessages(sessionId))[0]!.status).toBe('complete');
});

it('barge-in closes the socket; the stored answer is what was spoken, sentence by sentence', async () => {
  const long =
    'Sure, we are open every day from noon until late at night. Our kitchen serves seasonal dishes all day. ' +
    'Parking is free after six in the garage on the corner. We take bookings for groups.';
  answer = long;
  const { client, sessionId } = await connect(await elevenLabsAgent());
  const index = tts.connections.length;
  // the fake sends the clause and the start of the next sentence, then holds the socket open
  // (4 messages of at most 12 characters): the cut finds it open, and what was heard is known
  plans.set(index, { stallAfterAudio: 4 });
  client.sendJson({ type: 'text', text: 'Tell me everything.' });
  const start = await client.untilEvent('audio_start');
  await new Promise((r) => setTimeout(r, 250));
  answer = 'Of course.';
  client.sendJson({ type: 'text', text: 'Wait, one question.' });
  const interrupted = await client.untilEvent('interrupted');
  expect(interrupted.turn).toBe(start.turn);
  await tts.until(() => tts.connections[index]!.closed !== null, 5_000, 'the cut socket closed');
  expect(tts.connections[index]!.closed).toMatchObject({ by: 'client', code: 1000 });

  expect((await client.untilAnswer(2)).text).toBe('Of course.');
  await client.untilEvent('audio_end');
  await expect
    .poll(async () => (await agentMessages(sessionId)).map((m) => m.status))
    .toEqual(['interrupted', 'complete']);
  const [cut] = await agentMessages(sessionId);
  // the sentences whose audio had started, placed by ElevenLabs' alignment: the clause and the next one
  expect(cut!.text).toBe('Sure, we are open every day from noon until late at night.');
  expect(long.startsWith(cut!.text)).toBe(true);
});

it('a socket that fails mid-answer (1011) fails that turn alone: the next one is spoken', async () => {
  answer = 'One moment, I am checking the bookings for tonight and tomorrow.';
  const { client, sessionId } = await connect(await elevenLabsAgent());
  plans.set(tts.connections.length, { failAfterAudio: 2 });
  client.sendJson({ type: 'text', text: 'Any table tonight?' });
  expect(await client.untilEvent('error')).toMatchObject({ code: 'turn_failed', reason: 'tts_error' });

  answer = 'Yes, at eight.';
  client.sendJson({ type: 'text', text: 'And now?' });
  expect((await client.untilAnswer(2)).text).toBe('Yes, at eight.');
  const end = await client.untilEvent('audio_end', 1);
  expect(end.turn).toBe(2);
  expect(client.eventsOf('ended')).toEqual([]);

  const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
  expect(errors.body.data).toHaveLength(1);
  expect(errors.body.data[0]).toMatchObject({ type: 'tts_error' });
  expect(errors.body.data[0].message).toContain('1011 server error');
});
