import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Issue 14 items 2 and 3 over the built-in WebSocket transport: the webhook's reply asks for call
 * control beside its words. Real espeak-ng speech in and out, the real Silero VAD, the webhook a
 * real HTTP server. The closing words play whole (`audio_end`), then the session ends with the
 * action's reason; a transfer first sends the client a `transfer` message.
 */

let hello: AudioFrame;
let redis: TestRedis;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;
let webhookReply: (transcript: string) => Reply;
const clients: VoiceClient[] = [];

beforeAll(async () => {
  hello = await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname);
  redis = await TestRedis.start();
  audioApi = await OpenAiAudioServer.start({ transcribe: () => 'That is all, thank you.' });
  webhook = await HttpReceiver.start((req) =>
    webhookReply((req.json as { data: { transcript: string } }).data.transcript),
  );
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(redis, { OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test' });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close(), events?.close()]);
  await redis?.close();
});

async function connect(settings: Record<string, unknown> = {}) {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'call control',
      stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'voice',
      mode: 'passthrough',
      webhook_url: webhook.url,
      events_url: events.url,
      preset_id: preset.body.id,
      ...settings,
    },
  });
  expect(agent.status).toBe(201);
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string, agentId: agent.body.id as string };
}

/** Message types in order, without the captions (they interleave with the audio as sentences come). */
function flow(client: VoiceClient): string[] {
  return client.events.filter((e) => e.type !== 'response').map((e) => e.type);
}

describe('call control over the WebSocket transport', () => {
  it('end_call (spoken turn): the closing words play whole, then `ended` agent_hangup and close 1000', async () => {
    webhookReply = () => ({ body: { response: 'Goodbye, have a nice evening.', action: { type: 'end_call' } } });
    // One turn whatever the load: the fake STT punctuates every segment, so under smart
    // endpointing a loaded box could end the turn at one of the clip's 120 ms gaps and hear the
    // rest as a barge-in; silence endpointing waits 550 ms of silence (this test is about end_call)
    const { client, sessionId } = await connect({ endpointing_mode: 'silence' });
    await client.stream(hello, { speed: 4 });
    await client.untilClosed();
    expect(client.closeCode).toBe(1000);
    expect(flow(client)).toEqual(['ready', 'transcript', 'audio_start', 'audio_end', 'ended']);
    expect(client.eventsOf('ended')[0]).toMatchObject({ reason: 'agent_hangup' });
    expect(client.answers()[0]!.text).toBe('Goodbye, have a nice evening.');
    // The closing words went out in full: about as long as espeak takes to say them.
    const spoken = client.audio.reduce((n, a) => n + a.samples, 0) / 16000;
    expect(spoken).toBeGreaterThan(1);

    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'agent_hangup', turns: 1 });
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.messages.at(-1)).toMatchObject({
      role: 'agent',
      text: 'Goodbye, have a nice evening.',
      status: 'complete',
    });
    await events.until(() =>
      events.requests.some((r) => {
        const e = r.json as { type: string; session_id: string; data: { reason: string } };
        return e.type === 'session_end' && e.session_id === sessionId && e.data.reason === 'agent_hangup';
      }),
    );
  });

  it('transfer (typed turn): `transfer` with the destination after the words, then `ended` transferred', async () => {
    webhookReply = () => ({ body: { response: 'Connecting you to our front desk.', action: { type: 'transfer' } } });
    const { client, sessionId } = await connect({ transfer_to: 'sip:desk@pbx.example.com' });
    client.sendJson({ type: 'text', text: 'Can I talk to a person?' });
    await client.untilClosed();
    expect(client.closeCode).toBe(1000);
    expect(flow(client)).toEqual(['ready', 'transcript', 'audio_start', 'audio_end', 'transfer', 'ended']);
    expect(client.eventsOf('transfer')[0]).toMatchObject({ to: 'sip:desk@pbx.example.com' });
    expect(client.eventsOf('ended')[0]).toMatchObject({ reason: 'transferred' });
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'transferred' });
  });

  it('a malformed action is recorded and ignored: the answer is spoken and the session goes on', async () => {
    webhookReply = (t) =>
      t === 'first'
        ? { body: { response: 'I heard you.', action: { type: 'explode' } } }
        : { body: { response: 'Still listening.' } };
    const { client, sessionId, agentId } = await connect();
    client.sendJson({ type: 'text', text: 'first' });
    await client.untilEvent('audio_end');
    client.sendJson({ type: 'text', text: 'second' });
    await client.untilEvent('audio_end', 2);
    expect(client.answers().map((a) => a.text)).toEqual(['I heard you.', 'Still listening.']);
    expect(client.eventsOf('ended')).toEqual([]);
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ type: 'webhook_invalid_action', agent_id: agentId });
    client.sendJson({ type: 'end' });
    await client.untilClosed();
    expect(client.eventsOf('ended')[0]).toMatchObject({ reason: 'client_hangup' });
  });
});
