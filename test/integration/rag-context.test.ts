import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blobToVector } from '../../src/store/repositories/document-vectors.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { fakeEmbedding, startOpenAiEmbeddingsServer } from '../support/openai-embeddings-server.js';
import { startOpenAiServer, type ChatCompletionRequest } from '../support/openai-server.js';
import { TestRedis } from '../support/redis-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { ingestCorpus, ragEnv } from './rag-helpers.js';
import { createAgent } from '../support/agents.js';

let redis: TestRedis;
let webhook: HttpReceiver;
let events: HttpReceiver;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let p: TestParley;
const prompts: ChatCompletionRequest[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'from the webhook' } }));
  events = await HttpReceiver.start(() => ({ status: 204 }));
  llm = await startOpenAiServer((req) => {
    prompts.push(req);
    return 'from the model';
  });
  p = await startParley(redis, { ...ragEnv, OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test' });
});
afterAll(async () => {
  await p?.close();
  await Promise.all([webhook?.close(), events?.close(), llm?.close()]);
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  webhook.requests.length = 0;
  events.requests.length = 0;
  prompts.length = 0;
});

async function chat(agentId: string, message: string): Promise<{ session_id: string; response: string }> {
  const agent = await p.request('GET', `/admin/v1/agents/${agentId}`);
  const res = await p.request('POST', '/sdk/v1/chat', {
    body: { agent_token: agent.body.agent_token, message },
    apiKey: null,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

type WebhookBody = { data: { context: string | null; transcript: string } };

describe('RAG context in answers', () => {
  it('sends data.context null to the webhook while RAG is off, and the relevant chunk once it is on', async () => {
    const agent = (await createAgent(p, { mode: 'passthrough', webhook_url: webhook.url, events_url: events.url })).id;
    await ingestCorpus(p, agent, ['lighthouses.md', 'saturn.md', 'tea.md']);

    await chat(agent, 'Who invented the Fresnel lens?');
    expect((webhook.requests[0]!.json as WebhookBody).data.context).toBeNull();
    expect(events.requests.some((r) => (r.json as { type: string }).type === 'context_retrieved')).toBe(false);

    expect((await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { rag_enabled: true } })).status).toBe(200);
    const reply = await chat(agent, 'Who invented the Fresnel lens?');
    expect(reply.response).toBe('from the webhook');
    const body = webhook.requests[1]!.json as WebhookBody;
    expect(body.data.transcript).toBe('Who invented the Fresnel lens?');
    expect(body.data.context).toEqual(expect.any(String));
    expect(body.data.context).toContain('[lighthouses.md]');
    expect(body.data.context).toContain(
      'The Fresnel lens was invented by the French physicist Augustin-Jean Fresnel in 1822.',
    );

    const search = await p.request(
      'GET',
      `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent('Who invented the Fresnel lens?')}`,
    );
    await events.waitFor(1);
    await expect
      .poll(
        () =>
          events.requests.map((r) => r.json as { type: string }).filter((e) => e.type === 'context_retrieved').length,
        { timeout: 10_000 },
      )
      .toBe(1);
    const event = events.requests
      .map((r) => r.json as { type: string; session_id: string; agent_id: string; data: Record<string, unknown> })
      .find((e) => e.type === 'context_retrieved')!;
    expect(event).toMatchObject({ session_id: reply.session_id, agent_id: agent });
    expect(event.data['query']).toBe('Who invented the Fresnel lens?');
    expect(event.data['chunks']).toEqual(
      search.body.data.map((h: { chunk_id: string; document_id: string; score: number }) => ({
        id: h.chunk_id,
        document_id: h.document_id,
        score: h.score,
      })),
    );
  });

  it('puts the context into the enhanced-mode system prompt only when RAG is on', async () => {
    const agent = (await createAgent(p, { mode: 'enhanced' })).id;
    await ingestCorpus(p, agent, ['saturn.md', 'chess.html']);
    await chat(agent, "What are Saturn's rings made of?");
    expect(prompts[0]!.messages[0]!.content).not.toContain('water ice');
    await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { rag_enabled: true } });
    const reply = await chat(agent, "What are Saturn's rings made of?");
    expect(reply.response).toBe('from the model');
    const system = prompts[1]!.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain("Saturn's rings are made mostly of water ice");
  });
});

describe('OpenAI-compatible embeddings provider', () => {
  it('embeds chunks and queries through /v1/embeddings and stores the normalised vectors', async () => {
    const server = await startOpenAiEmbeddingsServer(16);
    // Its own key prefix: instances sharing a queue must share the embedding settings.
    const remote = await startParley(redis, {
      PARLEY_REDIS_PREFIX: 'remote',
      PARLEY_EMBEDDING_PROVIDER: 'openai',
      PARLEY_EMBEDDING_MODEL: 'test-embed',
      PARLEY_EMBEDDING_BASE_URL: server.baseUrl,
    });
    try {
      const agent = (await createAgent(remote)).id;
      const ids = await ingestCorpus(remote, agent, ['clutch.txt', 'volcanoes.txt']);
      const doc = (await remote.request('GET', `/admin/v1/agents/${agent}/documents/${ids['clutch.txt']}`)).body;
      expect(doc.embedding_model).toBe('openai:test-embed');
      const [stored] = await remote.parley.store.documents.loadReady(agent, new Set([ids['clutch.txt']!]));
      const chunk = stored!.chunks[0]!;
      const v = blobToVector((await remote.parley.store.documents.vectorBlob(agent, ids['clutch.txt']!, chunk.id))!);
      const raw = fakeEmbedding(chunk.text, 16);
      const norm = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
      expect(Array.from(v)).toEqual(raw.map((x) => Math.fround(x / norm)));
      const inputs = server.requests.flatMap((r) => (r.json as { input: string[] }).input);
      expect(inputs).toContain(chunk.text);
      expect((server.requests[0]!.json as { model: string }).model).toBe('test-embed');

      const hits = await remote.request(
        'GET',
        `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent(chunk.text)}&k=1`,
      );
      expect(hits.body.data[0]).toMatchObject({ chunk_id: chunk.id, vector_rank: 1, bm25_rank: 1 });
      expect(hits.body.data[0].vector).toBeCloseTo(1, 5);
    } finally {
      await remote.close();
      await server.close();
    }
  });
});
