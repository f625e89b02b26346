import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { knownServerMessageTypes } from '../../src/client/protocol.js';
import { ParleyApiError } from '../../src/client/api-error.js';
import { VoiceConnection, type VoiceEvents } from '../../src/client/voice-connection.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { readWav } from '../../src/audio/wav.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The client SDK (src/client) on Node 20 with the `ws` package's WebSocket, against a real Parley:
 * real espeak-ng speech through the real VAD, STT through a local OpenAI-compatible server, a real
 * webhook, espeak-ng speech back.
 */

const fixtures = new URL('../fixtures/audio/', import.meta.url);
let hello: AudioFrame;
let interrupt: AudioFrame;
let redis: TestRedis;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let p: TestParley;
let webhookReply: (transcript: string) => Reply;
const open: VoiceConnection[] = [];

beforeAll(async () => {
  [hello, interrupt] = [
    await readWav(new URL('hello.wav', fixtures).pathname),
    await readWav(new URL('interrupt.wav', fixtures).pathname),
  ];
  redis = await TestRedis.start();
  audioApi = await OpenAiAudioServer.start({ transcribe: (call) => `spoken words ${call.index}` });
  webhook = await HttpReceiver.start((req) =>
    webhookReply((req.json as { data: { transcript: string } }).data.transcript),
  );
  p = await startParley(redis, { OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test' });
});

afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close()]);
  await redis?.close();
});

async function agent(): Promise<{ id: string; agent_token: string }> {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'client sdk',
      stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const res = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'sdk',
      mode: 'passthrough',
      webhook_url: webhook.url,
      preset_id: preset.body.id,
      // the fake STT answers by call number: one call per utterance (no transcription at the short
      // pauses inside the fixtures' sentences; test/e2e/voice-turn-taking covers that)
      transcription_silence_ms: 200,
    },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** Every event of a connection, in order, with a way to wait for one. */
function record(connection: VoiceConnection) {
  const seen: { name: string; payload: unknown }[] = [];
  const names: (keyof VoiceEvents)[] = [...knownServerMessageTypes, 'unknown', 'flush', 'state', 'latency'];
  for (const name of names) connection.on(name, (payload) => seen.push({ name: String(name), payload }));
  let audioSamples = 0;
  connection.on('audio', (a) => (audioSamples += a.samples.length));
  const until = async (name: string, count = 1, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (seen.filter((e) => e.name === name).length < count) {
      if (Date.now() > deadline)
        throw new Error(`no ${name} in ${timeoutMs} ms; saw ${seen.map((e) => e.name).join(',')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return seen.filter((e) => e.name === name)[count - 1]!.payload;
  };
  return {
    seen,
    until,
    of: (name: string) => seen.filter((e) => e.name === name).map((e) => e.payload),
    audio: () => audioSamples,
  };
}

async function connect(agentToken: string) {
  const connection = new VoiceConnection({ baseUrl: p.url, agentToken, userId: 'sdk-user', WebSocket });
  const events = record(connection);
  open.push(connection);
  await connection.open();
  return { connection, events };
}

/** Streams `audio` as 20 ms frames at `speed` times real time. */
async function speak(connection: VoiceConnection, audio: AudioFrame, speed = 4): Promise<void> {
  const n = (audio.sampleRate * 20) / 1000;
  for (let i = 0; i < audio.samples.length; i += n) {
    connection.sendAudio(audio.samples.slice(i, i + n));
    await new Promise((r) => setTimeout(r, 20 / speed));
  }
}

describe('client SDK on Node against a real Parley', () => {
  it('connects, streams microphone frames, and gets captions, state, audio and the turn latency', async () => {
    webhookReply = (t) => ({ body: { response: `You said ${t}.` } });
    const { id, agent_token } = await agent();
    const { connection, events } = await connect(agent_token);
    expect(connection.sessionId).toMatch(/^ses_/);
    expect(connection.state).toBe('listening');

    await speak(connection, hello);
    const transcript = (await events.until('transcript')) as { turn: number; text: string };
    expect(transcript).toEqual({ type: 'transcript', turn: 1, text: 'spoken words 0' });
    await events.until('audio_end');
    const response = (await events.until('response')) as { text: string };
    expect(response.text).toBe('You said spoken words 0.');
    expect(events.audio() / 16000).toBeGreaterThan(0.5);
    const latency = events.of('latency')[0] as { turn: number; ms: number; from: string };
    expect(latency).toMatchObject({ turn: 1, from: 'speech_end' });
    expect(latency.ms).toBeGreaterThan(0);
    expect(events.of('state')).toEqual(expect.arrayContaining(['thinking', 'speaking', 'listening']));
    expect(events.of('state').indexOf('thinking')).toBeLessThan(events.of('state').indexOf('speaking'));

    // The conversation holds both sides with the agent's timings.
    const sessions = await p.request('GET', `/admin/v1/sessions/${connection.sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${sessions.body.conversation_id}`);
    const agentMessage = conversation.body.messages.find((m: { role: string }) => m.role === 'agent');
    expect(agentMessage.text).toBe('You said spoken words 0.');
    expect(agentMessage.timings.end_to_end_ms).toBeGreaterThan(0);
    expect(conversation.body.agent_id).toBe(id);
  });

  it('sends a text turn and measures it from the moment it was sent', async () => {
    webhookReply = (t) => ({ body: { response: `Typed: ${t}` } });
    const { agent_token } = await agent();
    const { connection, events } = await connect(agent_token);
    connection.sendText('what are your opening hours');
    expect(await events.until('transcript')).toMatchObject({ text: 'what are your opening hours' });
    expect(await events.until('response')).toMatchObject({ text: 'Typed: what are your opening hours' });
    // The caption comes before the audio it captions; the latency is measured at audio_start.
    expect(await events.until('latency')).toMatchObject({ turn: 1, from: 'text' });
    const names = events.seen.map((e) => e.name);
    expect(names.indexOf('transcript')).toBeLessThan(names.indexOf('response'));
    expect(names.indexOf('response')).toBeLessThan(names.indexOf('audio_start'));
  });

  it('flushes playback on interrupted (barge-in) and goes back to listening', async () => {
    webhookReply = () => ({
      body: { response: 'This answer is long on purpose. '.repeat(12) + 'It keeps going for many seconds.' },
    });
    const { agent_token } = await agent();
    const { connection, events } = await connect(agent_token);
    connection.sendText('tell me everything');
    await events.until('audio_start');
    await speak(connection, interrupt, 1);
    const interrupted = (await events.until('interrupted')) as { turn: number };
    const flush = (await events.until('flush')) as { cause: string; turn: number };
    expect(flush).toEqual({ cause: 'interrupted', turn: interrupted.turn });
    // Playback was paused at the user's first words, before the interruption was decided.
    const order = events.seen.map((e) => e.name).filter((n) => n === 'playback_paused' || n === 'interrupted');
    expect(order).toEqual(['playback_paused', 'interrupted']);
    const states = events.of('state');
    expect(states.lastIndexOf('listening')).toBeGreaterThan(states.indexOf('speaking'));
  });

  it('end() resolves with the server reason, once; nothing is sent after', async () => {
    webhookReply = () => ({ body: { response: 'ok' } });
    const { agent_token } = await agent();
    const { connection, events } = await connect(agent_token);
    const ended = await connection.end();
    expect(ended.reason).toBe('client_hangup');
    expect(connection.state).toBe('ended');
    connection.sendText('too late');
    await new Promise((r) => setTimeout(r, 100));
    expect(events.of('ended')).toHaveLength(1);
    const session = await p.request('GET', `/admin/v1/sessions/${connection.sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'client_hangup' });
  });

  it('a refused connection rejects open() and ends with reason `refused`, the close code and the server message', async () => {
    const { agent_token } = await agent();
    const grant = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token, transport: 'websocket' },
    });
    // A grant whose token is not Parley's: the media endpoint refuses it with 4401.
    const fakeFetch = (async () =>
      new Response(JSON.stringify({ ...grant.body, connection_token: 'not-a-token' }), {
        status: 201,
      })) as typeof fetch;
    const connection = new VoiceConnection({ baseUrl: p.url, agentToken: agent_token, WebSocket, fetch: fakeFetch });
    const ended = connection.once('ended');
    await expect(connection.open()).rejects.toThrow(/refused/);
    expect(await ended).toMatchObject({ reason: 'refused', code: 4401 });
    expect((await ended).message).toMatch(/token/);
  });

  it('a bad agent token is a ParleyApiError with the error body', async () => {
    const connection = new VoiceConnection({ baseUrl: p.url, agentToken: 'pat_wrong', WebSocket });
    const err = await connection.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParleyApiError);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe('client SDK and a newer server', () => {
  let server: WebSocketServer;
  let url: string;
  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/sdk/v1/media`;
    server.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'ready', session_id: 'ses_x', sample_rate: 16000 }));
      ws.send(JSON.stringify({ type: 'audio_start', turn: 1, sample_rate: 16000 }));
      ws.send(Buffer.alloc(640));
      ws.send(JSON.stringify({ type: 'response_delta', turn: 1, text: 'Hel' }));
      ws.send(JSON.stringify({ type: 'playback_paused', turn: 1 }));
      ws.send(JSON.stringify({ type: 'playback_resumed', turn: 1 }));
      ws.send(JSON.stringify({ type: 'agent_state', state: 'thinking' }));
      setTimeout(() => ws.terminate(), 50);
    });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('types unknown messages as `unknown`, pauses and resumes without flushing, and reports a dropped connection as ended', async () => {
    const grant = { session_id: 'ses_x', connection_token: 't', connection_url: url };
    const fakeFetch = (async () => new Response(JSON.stringify(grant), { status: 201 })) as typeof fetch;
    const connection = new VoiceConnection({
      baseUrl: 'http://unused',
      agentToken: 'pat_x',
      WebSocket,
      fetch: fakeFetch,
    });
    const events = record(connection);
    await connection.open();
    const ended = (await events.until('ended')) as { reason: string; code: number };
    expect(ended.reason).toBe('connection_lost');
    expect(ended.code).toBe(1006);
    expect(events.of('unknown')).toEqual([
      { type: 'response_delta', turn: 1, text: 'Hel' },
      { type: 'agent_state', state: 'thinking' },
    ]);
    expect(events.of('playback_paused')).toEqual([{ type: 'playback_paused', turn: 1 }]);
    expect(events.of('playback_resumed')).toEqual([{ type: 'playback_resumed', turn: 1 }]);
    expect(events.of('flush')).toEqual([]);
    expect(events.audio()).toBe(320);
    expect(events.of('state')).toEqual(['listening', 'speaking', 'thinking', 'ended']);
  });
});
