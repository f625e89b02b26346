import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { loadConfig } from '../../src/config/config.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { ProviderSet, type SpeechProviders } from '../../src/providers/speech-providers.js';
import { speech } from '../support/espeak-speech.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Turn-taking through the WebSocket transport: real espeak-ng speech in, the real Silero VAD,
 * the operator's webhook (or the LLM) as real HTTP servers, espeak-ng speech back. STT is a
 * stand-in that "hears" the phrases of the script the utterance is long enough to hold, so a
 * fragment cut at a short pause gets the words said so far. Behaviour is asserted (counts, order,
 * what was stored), never wall-clock times.
 */

const lead = 500; // ms of silence before the first phrase of each clip
/** What the STT stand-in answers for an utterance of `seconds` (the current test sets it). */
let hear: (seconds: number, audio: Int16Array) => string = () => '';

/**
 * Phrases in an utterance: runs of 10 ms blocks over RMS 300, a quiet gap of 250 ms or more
 * between two phrases (espeak leaves far less between words; the session keeps at least its
 * 300 ms prefix padding of each pause it joins across, however much of the pause it drops).
 */
function phrasesIn(audio: Int16Array): number {
  const block = 160;
  let phrases = 0;
  let quietMs = Infinity;
  for (let at = 0; at + block <= audio.length; at += block) {
    let sum = 0;
    for (let i = at; i < at + block; i++) sum += audio[i]! * audio[i]!;
    if (Math.sqrt(sum / block) > 300) {
      if (quietMs >= 250) phrases++;
      quietMs = 0;
    } else quietMs += 10;
  }
  return phrases;
}

/** STT for a scripted clip: the transcript of the phrases the utterance holds so far. */
function heardBy(transcripts: string[]): (seconds: number, audio: Int16Array) => string {
  return (_, audio) => transcripts[Math.max(0, Math.min(transcripts.length, phrasesIn(audio)) - 1)] ?? '';
}

let redis: TestRedis;
let webhook: HttpReceiver;
let llm: HttpReceiver & { baseUrl: string };
let p: TestParley;
let webhookAnswer: (transcript: string) => string = () => 'Okay.';
const clients: VoiceClient[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start((req) => ({
    body: { response: webhookAnswer((req.json as { data: { transcript: string } }).data.transcript) },
  }));
  llm = await startOpenAiServer(() => 'A table for two tonight, done.');
  const env = { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test' };
  const config = loadConfig({ ...env, MODELS_DIR: '/nonexistent' });
  const base = new ProviderSet(config, new ProviderRegistry(config));
  const speechProviders: SpeechProviders = {
    stt: () => ({ label: 'script', transcribe: async ({ audio }) => hear(audio.length / 16_000, audio) }),
    tts: (settings) => base.tts(settings),
  };
  p = await startParley(redis, env, { speech: speechProviders });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([webhook?.close(), llm?.close()]);
  await redis?.close();
});

async function agentWith(settings: Record<string, unknown>) {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'turns', tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' } },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'turns', mode: 'passthrough', webhook_url: webhook.url, preset_id: preset.body.id, ...settings },
  });
  expect(agent.status).toBe(201);
  return agent.body as { id: string; agent_token: string };
}

async function connect(agent: { agent_token: string }) {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.agent_token, user_id: 'caller', transport: 'websocket' },
  });
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string };
}

const transcriptsSentTo = (sessionId: string) =>
  webhook.requests
    .map((r) => r.json as { session_id: string; data: { transcript: string } })
    .filter((r) => r.session_id === sessionId)
    .map((r) => r.data.transcript);

async function messagesOf(sessionId: string) {
  const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
  const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
  return (conversation.body.messages as { role: string; text: string; status: string }[]).map((m) => [
    m.role,
    m.text,
    m.status,
  ]);
}

/** Streams the question, waits for the agent to speak, then streams `over` at real time. */
async function talkOverTheAnswer(client: VoiceClient, question: AudioFrame, over: AudioFrame) {
  await client.stream(question, { speed: 2 });
  await client.untilEvent('audio_start', 1, 30_000);
  await new Promise((r) => setTimeout(r, 500));
  await client.stream(over, { speed: 1 });
}

describe('turn-taking over the WebSocket transport', () => {
  it('a preemptive answer is dropped when the user goes on: one answer, to the whole utterance', async () => {
    const clip = speech(lead, 'I want to book a table', 600, 'for two people tonight.', 1_500);
    hear = heardBy(['I want to book a table', 'I want to book a table for two people tonight.']);
    // "I want to book a table", spoken with a falling voice, is a finished statement to the
    // statement-end rule (it would end the turn at 300 ms, as a "." would): off here, so the
    // fragment waits endpointing_default_ms and the user's going on drops the answer begun on it
    const agent = await agentWith({ mode: 'enhanced', statement_end_threshold: null });
    const before = llm.requests.length;
    const { client, sessionId } = await connect(agent);
    await client.stream(clip.audio, { speed: 1 });
    await client.untilEvent('audio_end', 1, 30_000);
    await new Promise((r) => setTimeout(r, 300));

    const asked = llm.requests.slice(before).map((r) => (r.json as ChatCompletionRequest).messages.at(-1)?.content);
    // The answer was started on the fragment at the short pause, then dropped for the whole.
    expect(asked).toEqual(['I want to book a table', 'I want to book a table for two people tonight.']);
    expect(client.eventsOf('transcript').map((e) => e.text)).toEqual([
      'I want to book a table for two people tonight.',
    ]);
    expect(client.eventsOf('audio_start')).toHaveLength(1);
    expect(client.answers()).toHaveLength(1);
    await expect
      .poll(() => messagesOf(sessionId))
      .toEqual([
        ['user', 'I want to book a table for two people tonight.', 'complete'],
        ['agent', 'A table for two tonight, done.', 'complete'],
      ]);
  });

  it('a phone number read with pauses is answered once, whole; the webhook is called once', async () => {
    const clip = speech(lead, 'My number is five five five', 700, 'one two three', 700, 'four five six seven.', 1_800);
    hear = heardBy(['My number is 555', 'My number is 555 123', 'My number is 555 123 4567.']);
    webhookAnswer = (t) => `Got it: ${t}`;
    const agent = await agentWith({});
    const { client, sessionId } = await connect(agent);
    await client.stream(clip.audio, { speed: 1 });
    await client.untilAnswer(1, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(transcriptsSentTo(sessionId)).toEqual(['My number is 555 123 4567.']);
    expect(client.eventsOf('transcript').map((e) => e.text)).toEqual(['My number is 555 123 4567.']);
    expect(client.answers().map((e) => e.text)).toEqual(['Got it: My number is 555 123 4567.']);
  });

  const long =
    'We serve breakfast, lunch and dinner every day of the week, with seasonal dishes, fresh bread, and a long list of wines from many regions.';

  it('"uh-huh" over the agent pauses its playback, does not interrupt, and playback resumes', async () => {
    const question = speech(lead, 'Tell me about your menu?', 1_000);
    const backchannel = speech(300, 'uh huh', 1_200);
    hear = (seconds) => (seconds < 1.2 ? 'Uh-huh.' : 'Tell me about your menu?');
    webhookAnswer = () => long;
    const agent = await agentWith({});
    const { client, sessionId } = await connect(agent);
    await talkOverTheAnswer(client, question.audio, backchannel.audio);
    const end = await client.untilEvent('audio_end', 1, 30_000);

    const flow = client.events.map((e) => e.type).filter((t) => t.startsWith('playback') || t === 'interrupted');
    expect(flow).toEqual(['playback_paused', 'playback_resumed']);
    const paused = client.eventsOf('playback_paused')[0]!;
    const resumed = client.eventsOf('playback_resumed')[0]!;
    expect(paused.turn).toBe(1);
    // No audio while paused; audio again after the resume, until the end of the answer.
    expect(client.audio.filter((a) => a.at > paused.at + 50 && a.at < resumed.at)).toEqual([]);
    expect(client.audio.some((a) => a.at > resumed.at && a.at <= end.at)).toBe(true);
    expect(transcriptsSentTo(sessionId)).toEqual(['Tell me about your menu?']);
    await expect
      .poll(() => messagesOf(sessionId))
      .toEqual([
        ['user', 'Tell me about your menu?', 'complete'],
        ['agent', long, 'complete'],
      ]);
    const sessionEvents = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(sessionEvents.body.turns).toBe(1);
  });

  it('"stop" over the agent interrupts it, and is the next turn (the webhook called once for it)', async () => {
    const question = speech(lead, 'Tell me about your menu?', 1_000);
    const stop = speech(300, 'stop', 1_500);
    hear = (seconds) => (seconds < 1.2 ? 'Stop.' : 'Tell me about your menu?');
    webhookAnswer = (t) => (t === 'Stop.' ? 'Sure, I will stop.' : long);
    const agent = await agentWith({});
    const { client, sessionId } = await connect(agent);
    await talkOverTheAnswer(client, question.audio, stop.audio);
    const interrupted = await client.untilEvent('interrupted');
    expect(interrupted.turn).toBe(1);
    const paused = client.eventsOf('playback_paused')[0]!;
    expect(paused.at).toBeLessThanOrEqual(interrupted.at);
    expect(client.eventsOf('playback_resumed')).toEqual([]);
    // Nothing of the cut answer after `interrupted`; the next answer comes with its own audio_start.
    const second = await client.untilAnswer(2, 30_000);
    expect(second.text).toBe('Sure, I will stop.');
    const nextStart = client.eventsOf('audio_start').find((e) => e.at > interrupted.at)?.at ?? Infinity;
    expect(client.audio.filter((a) => a.at > interrupted.at && a.at < nextStart)).toEqual([]);
    expect(transcriptsSentTo(sessionId)).toEqual(['Tell me about your menu?', 'Stop.']);
  });
});
