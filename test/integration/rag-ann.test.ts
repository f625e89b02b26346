import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiEmbeddingsServer } from '../support/openai-embeddings-server.js';
import { TestRedis } from '../support/redis-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { createAgent } from '../support/agents.js';
import { ingestCorpus, ragEnv } from './rag-helpers.js';

/** Every agent's vectors through the HNSW graph, however few. */
const annEnv = { ...ragEnv, PARLEY_RAG_ANN_MIN_CHUNKS: '0' };

let redis: TestRedis;
const open: TestParley[] = [];
async function parley(
  env: Record<string, string> = {},
  options: Parameters<typeof startParley>[2] = {},
): Promise<TestParley> {
  const p = await startParley(redis, { ...annEnv, ...env }, options);
  open.push(p);
  return p;
}
async function close(p: TestParley): Promise<void> {
  open.splice(open.indexOf(p), 1);
  await p.close();
}
beforeAll(async () => {
  redis = await TestRedis.start();
});
// Instances of a finished test would take the next test's ingestion jobs (one queue in Redis).
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
});
afterAll(async () => {
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
});

const questions = ['Who invented the Fresnel lens?', 'What are the rings of Saturn made of?', 'glacier moraine'];

async function search(
  p: TestParley,
  agent: string,
  q: string,
  k = 8,
): Promise<{ chunk_id: string; document_id: string }[]> {
  const res = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent(q)}&k=${k}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Waits until the process's graph covers every vector of the agent, so searches take the ANN path alone. */
async function graphBuilt(p: TestParley, agent: string): Promise<void> {
  const rag = p.parley.services.rag;
  await expect
    .poll(async () => {
      await search(p, agent, 'warm'); // loads the index when not loaded yet
      return rag.index.loaded(agent) !== undefined;
    })
    .toBe(true);
  const index = rag.index.loaded(agent)!;
  await index.settled();
  expect(index.vectorStats.rows).toBeGreaterThan(0);
  expect(index.vectorStats.annRows).toBe(index.vectorStats.rows);
}

describe('ANN index in the service', () => {
  it('is rebuilt from Redis on start and answers the same', async () => {
    const a = await parley();
    const agent = (await createAgent(a)).id;
    await ingestCorpus(a, agent, ['lighthouses.md', 'saturn.md', 'glaciers.pdf']);
    await graphBuilt(a, agent);
    const before = await Promise.all(questions.map((q) => search(a, agent, q)));
    expect(before[0]!.length).toBeGreaterThan(0);
    await close(a);

    const b = await parley();
    await graphBuilt(b, agent);
    expect(await Promise.all(questions.map((q) => search(b, agent, q)))).toEqual(before);
  });

  it('keeps two instances in step: a document added or deleted through one is found or gone on the other', async () => {
    const a = await parley();
    const b = await parley();
    const agent = (await createAgent(a)).id;
    const ids = await ingestCorpus(a, agent, ['lighthouses.md']);
    await graphBuilt(b, agent);
    const viaB = await ingestCorpus(b, agent, ['saturn.md']);
    await graphBuilt(a, agent);
    expect((await search(a, agent, 'Saturn rings'))[0]!.document_id).toBe(viaB['saturn.md']);

    const del = await b.request('DELETE', `/admin/v1/agents/${agent}/documents/${ids['lighthouses.md']}`);
    expect(del.status).toBe(204);
    for (const p of [a, b]) {
      const hits = await search(p, agent, 'Fresnel lens lighthouse keeper', 50);
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.every((h) => h.document_id === viaB['saturn.md'])).toBe(true);
    }
  });

  it("rebuilds the graph with the new model's vectors when the agent's embedding model changes", async () => {
    const server = await startOpenAiEmbeddingsServer(16);
    try {
      const a = await parley(
        { PARLEY_EMBEDDING_BASE_URL: server.baseUrl, PARLEY_EMBEDDING_API_KEY: 'sk-test' },
        { providers: { modelAliases: { 'Xenova/all-MiniLM-L6-v2': 'minilm-l6-random' } } },
      );
      const preset = await a.request('POST', '/admin/v1/presets', {
        body: { name: 'remote', embeddings: { provider: 'openai', model: 'text-embedding-3-small' } },
      });
      expect(preset.status).toBe(201);
      const agent = (await createAgent(a, { preset_id: preset.body.id })).id;
      const ids = await ingestCorpus(a, agent, ['clutch.txt', 'tea.md']);
      await graphBuilt(a, agent);
      expect(a.parley.services.rag.index.loaded(agent)!.vectorDims).toBe(16);

      const patch = await a.request('PATCH', `/admin/v1/presets/${preset.body.id}`, {
        body: { embeddings: { provider: 'local', model: 'Xenova/all-MiniLM-L6-v2' } },
      });
      expect(patch.status).toBe(200);
      for (const id of Object.values(ids))
        await expect
          .poll(
            async () => (await a.request('GET', `/admin/v1/agents/${agent}/documents/${id}`)).body.embedding_model,
            {
              timeout: 60_000,
              interval: 100,
            },
          )
          .toBe('local:Xenova/all-MiniLM-L6-v2');
      await graphBuilt(a, agent);
      const index = a.parley.services.rag.index.loaded(agent)!;
      expect(index.vectorDims).toBe(384);
      expect(index.vectorStats.rows).toBe(index.chunkCount); // every chunk has a vector of the new model
      const [top] = await search(a, agent, 'green tea leaves oxidised');
      expect(top).toMatchObject({ document_id: ids['tea.md'], vector_rank: expect.any(Number) });
    } finally {
      await server.close();
    }
  });
});
