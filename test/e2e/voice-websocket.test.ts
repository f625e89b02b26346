import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { loadConfig } from '../../src/config/config.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { ProviderSet, type SpeechProviders } from '../../src/providers/speech-providers.js';
import type { SttProvider } from '../../src/providers/stt.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * The whole voice pipeline through the built-in WebSocket transport: real espeak-ng speech in, the
 * real Silero VAD, STT through a local server speaking OpenAI's transcription API, the operator's
 * webhook as a real HTTP server, and real espeak-ng speech back.
 */

const fixtures = new URL('../fixtures/audio/', import.meta.url);
let hello: AudioFrame;
let twoUtterances: AudioFrame;
let interrupt: AudioFrame;

let redis: TestRedis;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;
let transcripts: string[];
let webhookReply: (transcript: string, index: number) => Reply;
const clients: VoiceClient[] = [];

/** An STT provider that throws a programming error: a stand-in for a bug inside one session. */
const crashingStt: SttProvider = {
  label: 'crash',
  transcribe: () => Promise.reject(new TypeError('simulated bug in one session')),
};

beforeAll(async () => {
  const wav = (name: string) => readWav(new URL(name, fixtures).pathname);
  [hello, twoUtterances, interrupt] = [
    await wav('hello.wav'),
    await wav('two-utterances.wav'),
    await wav('interrupt.wav'),
  ];
  redis = await TestRedis.start();
  audioApi = await OpenAiAudioServer.start({
    transcribe: (call) => transcripts[call.index] ?? `utterance ${call.index}`,
  });
  webhook = await HttpReceiver.start((req, index) =>
    webhookReply((req.json as { data: { transcript: string } }).data.transcript, index),
  );
  events = await HttpReceiver.start();
  const env = { OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test', PARLEY_EVENT_RETRY_BASE_MS: '50' };
  const config = loadConfig({ ...env, MODELS_DIR: '/nonexistent' });
  const base = new ProviderSet(config, new ProviderRegistry(config));
  const speech: SpeechProviders = {
    stt: (settings) => (settings.model === 'crash-test' ? crashingStt : base.stt(settings)),
    tts: (settings) => base.tts(settings),
  };
  p = await startParley(redis, env, { speech });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close(), events?.close()]);
  await redis?.close();
});

async function agentWith(settings: Record<string, unknown> = {}, sttModel = 'whisper-1') {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: `voice ${sttModel}`,
      stt: { provider: 'openai', model: sttModel, language: 'en' },
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
      // the fake STT answers by call number: one call per utterance (no transcription at the short
      // pauses inside the fixtures' sentences; voice-turn-taking.test.ts covers that)
      transcription_silence_ms: 200,
      ...settings,
    },
  });
  expect(agent.status).toBe(201);
  return agent.body as { id: string; agent_token: string };
}

async function connect(agent: { agent_token: string }, userId = 'caller-1') {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.agent_token, user_id: userId, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  expect(res.body.connection_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/sdk\/v1\/media$/);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string };
}

function webhookCallsFor(sessionId: string) {
  return webhook.requests.filter((r) => (r.json as { session_id: string }).session_id === sessionId);
}

describe('voice over the WebSocket transport', () => {
  it('one utterance: VAD finds it, STT transcribes it, the webhook answers, espeak speaks it back', async () => {
    transcripts = ['I would like to book a table for two tonight.'];
    webhookReply = (t) => ({ body: { response: `Sure. You said: ${t}` } });
    const agent = await agentWith();
    const { client, sessionId } = await connect(agent);
    const before = webhook.requests.length;
    await client.stream(hello, { speed: 4 });
    const response = await client.untilAnswer();
    expect(response.text).toBe('Sure. You said: I would like to book a table for two tonight.');
    // Captions as the answer is produced: sentence by sentence, then whole, before its audio.
    const captions = client.eventsOf('response').map((e) => [e.text, e.final]);
    expect(captions).toEqual([
      ['Sure.', false],
      ['Sure. You said: I would like to book a table for two tonight.', false],
      ['Sure. You said: I would like to book a table for two tonight.', true],
    ]);
    expect(client.eventsOf('response')[0]!.at).toBeLessThanOrEqual((await client.untilEvent('audio_start')).at);

    const calls = webhookCallsFor(sessionId);
    expect(calls).toHaveLength(1);
    expect(webhook.requests.length - before).toBe(1);
    const body = calls[0]!.json as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['data', 'session_id', 'timestamp', 'type']);
    expect(body).toMatchObject({
      type: 'transcription_complete',
      session_id: sessionId,
      data: { transcript: 'I would like to book a table for two tonight.', user_id: 'caller-1', context: null },
    });
    expect(new Date(body['timestamp'] as string).toISOString()).toBe(body['timestamp']);

    // The utterance reached STT as 16 kHz audio about as long as the spoken phrase.
    const stt = audioApi.transcriptions.at(-1)!;
    expect(stt.audio.sampleRate).toBe(16000);
    expect(stt.audio.samples.length / 16000).toBeGreaterThan(1.5);
    expect(stt.model).toBe('whisper-1');

    // Speech came back: audio_start, PCM frames, audio_end, in that order.
    const start = client.eventsOf('audio_start')[0]!;
    const end = await client.untilEvent('audio_end');
    expect(start.sample_rate).toBe(16000);
    const frames = client.audio.filter((a) => a.at >= start.at && a.at <= end.at);
    const seconds = frames.reduce((n, a) => n + a.samples, 0) / 16000;
    expect(seconds).toBeGreaterThan(1);
    expect(client.eventsOf('transcript')[0]!.text).toBe('I would like to book a table for two tonight.');

    // Records: the conversation has both messages, the agent's with its timings.
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    const [user, reply] = conversation.body.messages as {
      role: string;
      text: string;
      status: string;
      timings: Record<string, number>;
    }[];
    expect(user).toMatchObject({ role: 'user', text: 'I would like to book a table for two tonight.' });
    expect(reply).toMatchObject({ role: 'agent', status: 'complete' });
    for (const t of ['endpointing_ms', 'stt_ms', 'response_ms', 'first_audio_ms', 'end_to_end_ms'])
      expect(reply!.timings[t]).toBeGreaterThanOrEqual(0);
    // The user waited from the end of their speech (as the audio arrived: 4x real time here),
    // through the VAD's silence wait, to the first audio frame.
    expect(reply!.timings['endpointing_ms']).toBeGreaterThan(0);
    const t = reply!.timings;
    expect(t['end_to_end_ms']).toBeGreaterThanOrEqual(
      t['endpointing_ms']! + t['response_ms']! + t['first_audio_ms']! - 1,
    );
    // smart endpointing transcribes during the wait: the recogniser's own time, within endpointing
    expect(t['stt_ms']).toBeGreaterThan(0);
    expect(t['stt_ms']).toBeLessThanOrEqual(t['endpointing_ms']! + 1);

    client.sendJson({ type: 'end' });
    await client.untilClosed();
    await events.until(() =>
      events.requests.some(
        (r) =>
          (r.json as { type: string; session_id: string }).type === 'session_end' &&
          (r.json as { session_id: string }).session_id === sessionId,
      ),
    );
    const types = events.requests
      .filter((r) => (r.json as { session_id: string }).session_id === sessionId)
      .map((r) => (r.json as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(['session_start', 'llm_response', 'audio_ready', 'session_end']));
    const llmResponse = events.requests
      .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
      .find((e) => e.type === 'llm_response' && e.session_id === sessionId)!;
    expect(llmResponse.data).toMatchObject({
      response: 'Sure. You said: I would like to book a table for two tonight.',
      interrupted: false,
      channel: 'voice',
    });
    const audioReady = events.requests
      .map((r) => r.json as { type: string; session_id: string; data: { duration_ms: number } })
      .find((e) => e.type === 'audio_ready' && e.session_id === sessionId)!;
    expect(audioReady.data.duration_ms).toBeCloseTo(seconds * 1000, -2);
    const ended = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(ended.body).toMatchObject({ status: 'ended', end_reason: 'client_hangup', turns: 1 });
  });

  it('speaks the agent greeting first (turn 0) and stores it in the conversation', async () => {
    const agent = await agentWith({ greeting: 'Hello, thanks for calling.' });
    const { client, sessionId } = await connect(agent);
    const start = await client.untilEvent('audio_start');
    expect(start.turn).toBe(0);
    expect(client.answers()[0]).toMatchObject({ turn: 0, text: 'Hello, thanks for calling.' });
    await client.untilEvent('audio_end');
    expect(client.audio.reduce((n, a) => n + a.samples, 0) / 16000).toBeGreaterThan(0.5);
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    await expect
      .poll(
        async () => (await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`)).body.messages,
      )
      .toEqual([expect.objectContaining({ role: 'agent', text: 'Hello, thanks for calling.', status: 'complete' })]);
  });

  it('two utterances make two webhook calls, in order', async () => {
    transcripts = ['What time do you open tomorrow?', 'And do you have parking?'];
    audioApi.transcriptions.length = 0;
    webhookReply = () => ({ body: { response: 'Yes.' } });
    const agent = await agentWith({ interruptions_enabled: false });
    const { client, sessionId } = await connect(agent);
    await client.stream(twoUtterances, { speed: 2 });
    await client.untilAnswer(2);
    expect(webhookCallsFor(sessionId).map((r) => (r.json as { data: { transcript: string } }).data.transcript)).toEqual(
      transcripts,
    );
  });

  it('barge-in: speech over the agent stops its audio within a frame and the interrupting utterance is the next turn', async () => {
    transcripts = ['Tell me everything about your menu.', 'Wait, stop, one more question.'];
    audioApi.transcriptions.length = 0;
    const long =
      'We serve breakfast, lunch and dinner every day of the week, with seasonal dishes, fresh bread, and a long list of wines from many regions.';
    webhookReply = (t) => ({ body: { response: t.startsWith('Wait') ? 'Of course.' : long } });
    const agent = await agentWith({ interruption_min_speech_ms: 200 });
    const { client, sessionId } = await connect(agent);
    await client.stream(hello, { speed: 4 });
    await client.untilEvent('audio_start');
    // Let the agent talk for a while, then talk over it at real-time pace.
    await new Promise((r) => setTimeout(r, 600));
    await client.stream(interrupt, { speed: 1 });
    const interrupted = await client.untilEvent('interrupted');
    expect(interrupted.turn).toBe(1);
    // Wait, then count: no frame of the cut answer may arrive after `interrupted` (the graph is
    // unsubscribed before it is sent); the next answer's audio starts with its own `audio_start`.
    await new Promise((r) => setTimeout(r, 1_500));
    const nextStart = client.eventsOf('audio_start').find((e) => e.at > interrupted.at)?.at ?? Number.POSITIVE_INFINITY;
    const late = client.audio.filter((a) => a.at > interrupted.at && a.at < nextStart);
    expect(late).toEqual([]);
    expect(client.audio.filter((a) => a.at < interrupted.at).length).toBeGreaterThan(5);
    // The interrupting utterance becomes the next turn.
    const second = await client.untilAnswer(2, 30_000);
    expect(second.text).toBe('Of course.');
    expect(webhookCallsFor(sessionId)).toHaveLength(2);
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    const agentMessages = (conversation.body.messages as { role: string; status: string; text: string }[]).filter(
      (m) => m.role === 'agent',
    );
    expect(agentMessages.map((m) => m.text.slice(0, 20))).toEqual([long.slice(0, 20), 'Of course.']);
    // The answer was whole before the cut, so `llm_response` went out complete and at once; its
    // playback (`audio_ready`) says it was interrupted, with the part that was spoken.
    const sessionEvents = () =>
      events.requests
        .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
        .filter((e) => e.session_id === sessionId);
    await events.until(() => sessionEvents().filter((e) => e.type === 'audio_ready').length === 2);
    const [firstAnswer] = sessionEvents().filter((e) => e.type === 'llm_response');
    expect(firstAnswer!.data).toMatchObject({ response: long, interrupted: false });
    const [cut, whole] = sessionEvents().filter((e) => e.type === 'audio_ready');
    expect(cut!.data).toMatchObject({ turn: 1, interrupted: true });
    expect(whole!.data).toMatchObject({ turn: 2, interrupted: false });
  });

  it('barge-in while the webhook is still thinking aborts the request', async () => {
    transcripts = ['First question.', 'Wait, stop, one more question.'];
    audioApi.transcriptions.length = 0;
    webhookReply = (t) =>
      t.startsWith('First') ? { body: { response: 'late' }, delayMs: 8_000 } : { body: { response: 'Of course.' } };
    const agent = await agentWith();
    const abandonedBefore = webhook.abandoned;
    const { client } = await connect(agent);
    await client.stream(hello, { speed: 4 });
    await webhook.until(() =>
      webhook.requests.some((r) => (r.json as { data: { transcript: string } }).data.transcript === 'First question.'),
    );
    // Within the real-time allowance (5 s ahead): the first utterance already took 3.6 s of it.
    await client.stream(interrupt, { speed: 1.5 });
    await client.untilEvent('interrupted');
    await webhook.until(() => webhook.abandoned > abandonedBefore);
    const response = await client.untilAnswer();
    expect(response.text).toBe('Of course.');
  });

  it('webhook 500 (no fallback line): silence for that turn, an error record, and the next turn works', async () => {
    // Finished sentences: smart endpointing answers them after a short wait (the clip is streamed
    // at twice real time, so its 1.5 s pause lasts 0.75 s).
    transcripts = ['First question.', 'Second question.'];
    audioApi.transcriptions.length = 0;
    webhookReply = (_t, index) =>
      index % 2 === 0 ? { status: 500, body: { error: 'down' } } : { body: { response: 'Back again.' } };
    webhook.requests.length = 0;
    const agent = await agentWith({ fallback_line: '' });
    const { client, sessionId } = await connect(agent);
    await client.stream(twoUtterances, { speed: 2 });
    const response = await client.untilAnswer();
    expect(response.text).toBe('Back again.');
    await client.untilEvent('audio_end');
    expect(client.eventsOf('audio_start')).toHaveLength(1);
    expect(client.eventsOf('error')[0]).toMatchObject({ code: 'turn_failed', reason: 'webhook_http_error' });
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ type: 'webhook_http_error', status_code: 500, agent_id: agent.id });
    // The failed turn stays in the conversation: a `failed` agent message linked to its error record.
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    const messages = conversation.body.messages as { role: string; status: string; text: string; error_id: string }[];
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['agent', 'failed'],
      ['user', 'complete'],
      ['agent', 'complete'],
    ]);
    expect(messages[1]!.error_id).toBe(errors.body.data[0].id);
  });

  it('webhook timeout: that turn says its fallback line, then the next turn works', async () => {
    // Finished sentences: smart endpointing answers them after a short wait (the clip is streamed
    // at twice real time, so its 1.5 s pause lasts 0.75 s).
    transcripts = ['First question.', 'Second question.'];
    audioApi.transcriptions.length = 0;
    webhook.requests.length = 0;
    webhookReply = (_t, index) =>
      index === 0 ? { body: { response: 'too late' }, delayMs: 3_000 } : { body: { response: 'In time.' } };
    const agent = await agentWith({ webhook_timeout_ms: 500, interruptions_enabled: false });
    const { client, sessionId } = await connect(agent);
    await client.stream(twoUtterances, { speed: 2 });
    const response = await client.untilAnswer();
    expect(response.text).toBe('In time.');
    expect(client.eventsOf('error')).toMatchObject([{ code: 'turn_failed', reason: 'webhook_timeout' }]);
    // The fallback line (espeak) for the failed turn, then the answer to the next one.
    await client.untilEvent('audio_end', 2);
    expect(client.eventsOf('audio_end').map((e) => e.turn)).toEqual([1, 2]);
    expect(client.eventsOf('audio_start')[0]!.at).toBeGreaterThanOrEqual(client.eventsOf('error')[0]!.at);
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}&type=webhook_timeout`);
    expect(errors.body.data).toHaveLength(1);
  });

  it('ends an idle session with reason idle_timeout', async () => {
    const agent = await agentWith({ idle_timeout_ms: 5_000 });
    const { client, sessionId } = await connect(agent);
    const ended = await client.untilEvent('ended', 1, 15_000);
    expect(ended.reason).toBe('idle_timeout');
    await client.untilClosed();
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
  });

  it("a provider's bug fails only its turn (stt_error, turn_failed); that session and the healthy one beside it carry on", async () => {
    transcripts = [];
    webhookReply = () => ({ body: { response: 'Still here.' } });
    const healthyAgent = await agentWith();
    const brokenAgent = await agentWith({}, 'crash-test');
    const healthy = await connect(healthyAgent, 'healthy');
    const broken = await connect(brokenAgent, 'broken');
    await Promise.all([healthy.client.stream(hello, { speed: 4 }), broken.client.stream(hello, { speed: 4 })]);
    const failed = await broken.client.untilEvent('error');
    expect(failed.code).toBe('turn_failed');
    const response = await healthy.client.untilAnswer();
    expect(response.text).toBe('Still here.');
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${broken.sessionId}`);
    expect(errors.body.data.map((e: { type: string }) => e.type)).toEqual(['stt_error']);
    expect(errors.body.data[0].message).toBe('crash: transcription failed: simulated bug in one session');
    // the broken session still listens: a typed turn is answered
    broken.client.sendJson({ type: 'text', text: 'are you there' });
    expect((await broken.client.untilAnswer()).text).toBe('Still here.');
    for (const { sessionId } of [healthy, broken]) {
      const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
      expect(session.body.status).toBe('active');
    }
  });

  it('bad frames and bad JSON get an error event, not a dropped connection', async () => {
    const agent = await agentWith();
    const { client } = await connect(agent);
    client.sendRaw(Buffer.from([1, 2, 3]));
    client.sendRaw('not json');
    client.sendJson({ type: 'dance' });
    await client.untilEvent('error', 3);
    expect(client.eventsOf('error').map((e) => e.code)).toEqual(['bad_audio_frame', 'invalid_json', 'invalid_message']);
    client.sendJson({ type: 'text', text: 'typed question' });
    webhookReply = () => ({ body: { response: 'typed answer' } });
    const response = await client.untilAnswer();
    expect(response.text).toBe('typed answer');
    expect(client.closeCode).toBeNull();
  });

  it('refuses bad tokens and ended sessions with a close code and reason', async () => {
    const agent = await agentWith();
    const res = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: agent.agent_token, transport: 'websocket' },
    });
    const forged = await VoiceClient.connect(res.body.connection_url, res.body.connection_token.slice(0, -4) + 'AAAA');
    await forged.untilClosed();
    expect(forged.closeCode).toBe(4401);
    const real = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
    clients.push(real);
    await real.untilEvent('ready');
    const second = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
    await second.untilClosed();
    expect(second.closeCode).toBe(4409);
    real.sendJson({ type: 'end' });
    await real.untilClosed();
    const again = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
    await again.untilClosed();
    expect(again.closeCode).toBe(4409);
    const badRate = await VoiceClient.connect(res.body.connection_url, res.body.connection_token, 12345);
    await badRate.untilClosed();
    expect(badRate.closeCode).toBe(4400);
  });
});
