import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * An enhanced agent over the WebSocket transport: the LLM's streamed answer is captioned sentence
 * by sentence and spoken by espeak-ng; the LLM settings are the preset's as it was when the
 * session started (read once per session, not per turn).
 */

let redis: TestRedis;
let llm: HttpReceiver & { baseUrl: string };
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  llm = await startOpenAiServer(() => 'Happy to help today. What would you like to book?');
  p = await startParley(redis, { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test' });
});

afterAll(async () => {
  await p?.close();
  await llm?.close();
  await redis?.close();
});

const modelsAsked = () => llm.requests.map((r) => (r.json as ChatCompletionRequest).model);

async function connect(agentToken: string): Promise<VoiceClient> {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agentToken, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  await client.untilEvent('ready');
  return client;
}

it('streams LLM sentences as captions and speech, with the LLM settings read when the session started', async () => {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'enhanced voice',
      llm: { provider: 'openai', model: 'model-a' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  expect(preset.status).toBe(201);
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'enhanced', mode: 'enhanced', system_prompt: 'Be brief.', preset_id: preset.body.id },
  });
  expect(agent.status).toBe(201);
  const first = await connect(agent.body.agent_token);
  try {
    // The operator switches the model while the session runs: this session keeps its settings.
    const patched = await p.request('PATCH', `/admin/v1/presets/${preset.body.id}`, {
      body: { llm: { provider: 'openai', model: 'model-b' } },
    });
    expect(patched.status).toBe(200);

    first.sendJson({ type: 'text', text: 'I want to book a table.' });
    const answer = await first.untilAnswer();
    expect(answer.text).toBe('Happy to help today. What would you like to book?');
    expect(first.eventsOf('response').map((e) => [e.text, e.final])).toEqual([
      ['Happy to help today.', false],
      ['Happy to help today. What would you like to book?', false],
      ['Happy to help today. What would you like to book?', true],
    ]);
    await first.untilEvent('audio_end');
    expect(first.audio.length).toBeGreaterThan(10);
    expect(modelsAsked()).toEqual(['model-a']);

    // A session started after the change uses the new settings.
    const second = await connect(agent.body.agent_token);
    second.sendJson({ type: 'text', text: 'Hello?' });
    await second.untilAnswer();
    expect(modelsAsked()).toEqual(['model-a', 'model-b']);
    second.close();
  } finally {
    first.close();
  }
});
