import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { readWav } from '../../src/audio/wav.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { ProviderSet, type SpeechProviders } from '../../src/providers/speech-providers.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest, type ToolCallsAnswer } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Tools in a voice session over the WebSocket transport: the LLM (a fake OpenAI server streaming
 * tool calls) calls a real HTTP tool, the answer is captioned and spoken by espeak-ng; a slow tool
 * says its slow phrase; real speech (Silero VAD) over a call in flight aborts it.
 */

let redis: TestRedis;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let tools: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;
let interrupt: AudioFrame;
let script: (req: ChatCompletionRequest, index: number) => string | ToolCallsAnswer;
/**
 * The STT stand-in: the transcript of however much of the utterance the audio holds. Smart
 * endpointing transcribes the first phrase at the short silence, then the whole utterance again
 * once the user goes on, as a real STT would hear it.
 */
let hear: (seconds: number) => string = () => '';
const clients: VoiceClient[] = [];

beforeAll(async () => {
  interrupt = await readWav(new URL('../fixtures/audio/interrupt.wav', import.meta.url).pathname);
  redis = await TestRedis.start();
  llm = await startOpenAiServer((req) => script(req, llm.requests.length - 1));
  tools = await HttpReceiver.start();
  events = await HttpReceiver.start();
  const env = { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test', PARLEY_EVENT_RELAY_INTERVAL_MS: '50' };
  const config = loadConfig({ ...env, MODELS_DIR: '/nonexistent' });
  const base = new ProviderSet(config, new ProviderRegistry(config));
  // STT stands in (the LLM server holds OPENAI_BASE_URL); VAD and TTS are the real ones.
  const speech: SpeechProviders = {
    stt: () => ({ label: 'script', transcribe: async ({ audio }) => hear(audio.length / 16_000) }),
    tts: (settings) => base.tts(settings),
  };
  p = await startParley(redis, env, { speech });
});

beforeEach(() => {
  llm.requests.length = 0;
  tools.requests.length = 0;
  events.requests.length = 0;
  hear = () => '';
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await p?.close();
  await Promise.all([llm?.close(), tools?.close(), events?.close()]);
  await redis?.close();
});

async function connectAgent(tool: Record<string, unknown>) {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'tools voice',
      llm: { provider: 'openai', model: 'm' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'voice tools',
      mode: 'enhanced',
      preset_id: preset.body.id,
      events_url: events.url,
      interruption_min_speech_ms: 200,
      tools: [
        {
          name: 'lookup_order',
          description: 'Look up an order.',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
          url: `${tools.url}/orders`,
          ...tool,
        },
      ],
    },
  });
  expect(agent.status).toBe(201);
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string, agentId: agent.body.id as string };
}

async function messagesOf(sessionId: string) {
  const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
  const res = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
  return res.body.messages as { role: string; status: string; text: string; tool_call?: Record<string, unknown> }[];
}

it('speaks the text said before the call, the slow phrase while it runs, then the answer; records the call', async () => {
  tools.respond = () => ({ body: { status: 'shipped' }, delayMs: 1_500 });
  script = (_req, i) =>
    i === 0
      ? { text: 'Let me check.', toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'A-1' } }] }
      : 'Your order has shipped.';
  const { client, sessionId } = await connectAgent({ slow_phrase: 'One moment please.' });
  client.sendJson({ type: 'text', text: 'Where is order A-1?' });
  const answer = await client.untilAnswer();
  expect(answer.text).toBe('Let me check. One moment please. Your order has shipped.');
  const captions = client.eventsOf('response').map((e) => e.text);
  expect(captions.slice(0, 3)).toEqual([
    'Let me check.',
    'Let me check. One moment please.',
    'Let me check. One moment please. Your order has shipped.',
  ]);
  // The first sentence was spoken while the tool was still working.
  const firstAudio = client.eventsOf('audio_start')[0]!.at;
  await client.untilEvent('audio_end');
  expect(firstAudio).toBeLessThan(answer.at);

  const messages = await eventually(
    () => messagesOf(sessionId),
    (m) => m.length === 3,
    { what: 'three messages' },
  );
  expect(messages.map((m) => m.role)).toEqual(['user', 'tool', 'agent']);
  expect(messages[1]).toMatchObject({
    status: 'complete',
    tool_call: { name: 'lookup_order', result: { status: 'shipped' } },
  });
  await eventually(
    () => events.requests.find((r) => (r.json as { type: string }).type === 'tool_call'),
    (e) => e !== undefined,
    { what: 'tool_call event' },
  ).then((e) =>
    expect(e!.json).toMatchObject({ session_id: sessionId, data: { channel: 'voice', tool: 'lookup_order' } }),
  );
});

it('barge-in during a tool call aborts it; the call is recorded as interrupted and the next turn is answered', async () => {
  tools.respond = () => ({ body: { status: 'late' }, delayMs: 15_000 });
  script = (req) =>
    req.messages.at(-1)?.content === 'Never mind, thanks.'
      ? 'All right.'
      : { toolCalls: [{ id: 'call_slow', name: 'lookup_order', arguments: { order_id: 'Z-9' } }] };
  const { client, sessionId } = await connectAgent({ timeout_ms: 30_000 });
  client.sendJson({ type: 'text', text: 'Where is order Z-9?' });
  await tools.until(() => tools.requests.length === 1);
  const abandonedBefore = tools.abandoned;
  // interrupt.wav at 1.5× is two phrases (VAD: ~0.9 s, then ~2.6 s joined) with a short pause.
  hear = (seconds) => (seconds < 1.5 ? 'Never mind,' : 'Never mind, thanks.');
  await client.stream(interrupt, { speed: 1.5 });
  await client.untilEvent('interrupted');
  await tools.until(() => tools.abandoned > abandonedBefore);
  const answer = await client.untilAnswer();
  expect(answer.text).toBe('All right.');

  const messages = await eventually(
    () => messagesOf(sessionId),
    (m) => m.some((x) => x.role === 'tool') && m.filter((x) => x.role === 'agent').length >= 1,
    { what: 'the tool message' },
  );
  const tool = messages.find((m) => m.role === 'tool')!;
  expect(tool).toMatchObject({
    status: 'interrupted',
    tool_call: { call_id: 'call_slow', error: { code: 'aborted' } },
  });
  // An abort is not an error: no tool_error record.
  const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
  expect(errors.body.data.filter((e: { type: string }) => e.type === 'tool_error')).toEqual([]);
});
