import { afterAll, beforeAll, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import { ingestCorpus, ragEnv } from '../integration/rag-helpers.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';
import { createAgent } from '../support/agents.js';

/** Voice turns retrieve context like chat messages do: the utterance's transcript is the query. */

let redis: TestRedis;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  audioApi = await OpenAiAudioServer.start({ transcribe: () => 'Who invented the Fresnel lens?' });
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Augustin-Jean Fresnel.' } }));
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(redis, { ...ragEnv, OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test' });
});

afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close(), events?.close()]);
  await redis?.close();
});

it('an utterance to an agent with RAG on sends the relevant chunk as data.context and emits context_retrieved', async () => {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'voice',
      stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const { id: agentId } = await createAgent(p, {
    mode: 'passthrough',
    webhook_url: webhook.url,
    events_url: events.url,
    preset_id: preset.body.id,
    rag_enabled: true,
  });
  await ingestCorpus(p, agentId, ['lighthouses.md', 'saturn.md']);
  const agent = await p.request('GET', `/admin/v1/agents/${agentId}`);
  const session = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(session.body.connection_url, session.body.connection_token);
  try {
    await client.untilEvent('ready');
    await client.stream(await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname), { speed: 4 });
    await client.untilAnswer();
    const body = webhook.requests[0]!.json as { data: { transcript: string; context: string | null } };
    expect(body.data.transcript).toBe('Who invented the Fresnel lens?');
    expect(body.data.context).toContain('[lighthouses.md]');
    expect(body.data.context).toContain('Fresnel');
    await events.until(() => events.requests.some((r) => (r.json as { type: string }).type === 'context_retrieved'));
    const event = events.requests
      .map((r) => r.json as { type: string; session_id: string; data: { query: string } })
      .find((e) => e.type === 'context_retrieved')!;
    expect(event.session_id).toBe(session.body.session_id);
    expect(event.data.query).toBe('Who invented the Fresnel lens?');
  } finally {
    client.close();
  }
});
