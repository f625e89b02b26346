import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blobToVector } from '../../src/store/repositories/document-vectors.js';
import { startOpenAiEmbeddingsServer } from '../support/openai-embeddings-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { ingestCorpus, ragEnv } from './rag-helpers.js';
import { createAgent } from '../support/agents.js';

/**
 * A preset's `embeddings` section picks the model of its agents' documents and queries; changing
 * it re-embeds them. The remote model is the fake /v1/embeddings server (16 dimensions), the local
 * one the random-weight MiniLM (384), found under its catalog id through a folder alias.
 */
let redis: TestRedis;
let server: Awaited<ReturnType<typeof startOpenAiEmbeddingsServer>>;
let p: TestParley;

const remoteEmbeddings = { provider: 'openai', model: 'text-embedding-3-small' };
const localEmbeddings = { provider: 'local', model: 'Xenova/all-MiniLM-L6-v2' };
const providers = { modelAliases: { 'Xenova/all-MiniLM-L6-v2': 'minilm-l6-random' } };

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { ...ragEnv, PARLEY_EMBEDDING_BASE_URL: server.baseUrl, PARLEY_EMBEDDING_API_KEY: 'sk-test', ...extra };
}

beforeAll(async () => {
  redis = await TestRedis.start();
  server = await startOpenAiEmbeddingsServer(16);
  p = await startParley(redis, env(), { providers });
});
afterAll(async () => {
  await p?.close();
  await server?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  server.requests.length = 0;
});

/** A preset with this embeddings section; without one it is null, the deployment default. */
async function createPreset(embeddings?: Record<string, string>): Promise<string> {
  const res = await p.request('POST', '/admin/v1/presets', { body: { name: 'RAG preset', embeddings } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.embeddings).toEqual(embeddings ?? null);
  return res.body.id as string;
}

function embeddedInputs(): string[] {
  return server.requests.flatMap((r) => (r.json as { input: string[] }).input);
}

async function document(on: TestParley, agent: string, doc: string): Promise<Record<string, unknown>> {
  const res = await on.request('GET', `/admin/v1/agents/${agent}/documents/${doc}`);
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

async function vectorDims(on: TestParley, agent: string, doc: string): Promise<number> {
  const [stored] = await on.parley.store.documents.loadReady(agent, new Set([doc]));
  const blob = await on.parley.store.documents.vectorBlob(agent, doc, stored!.chunks[0]!.id);
  return blobToVector(blob!).length;
}

async function search(on: TestParley, agent: string, q: string): Promise<Record<string, unknown>[]> {
  const res = await on.request('GET', `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent(q)}&k=3`);
  expect(res.status).toBe(200);
  return res.body.data as Record<string, unknown>[];
}

/** Polls until the document's vectors come from `model`; it stays ready throughout. */
async function reembedded(on: TestParley, agent: string, doc: string, model: string): Promise<Record<string, unknown>> {
  await expect
    .poll(
      async () => {
        const d = await document(on, agent, doc);
        expect(d.status).toBe('ready');
        return d.embedding_model;
      },
      { timeout: 60_000, interval: 100 },
    )
    .toBe(model);
  return document(on, agent, doc);
}

const slow = { timeout: 120_000 };

describe("a preset's embeddings section", slow, () => {
  it("embeds its agents' documents and queries; agents without a preset use the deployment default", async () => {
    const preset = await createPreset(remoteEmbeddings);
    const remote = (await createAgent(p, { preset_id: preset })).id;
    const local = (await createAgent(p)).id;
    const { 'clutch.txt': remoteDoc } = await ingestCorpus(p, remote, ['clutch.txt']);
    expect(await document(p, remote, remoteDoc!)).toMatchObject({ embedding_model: 'openai:text-embedding-3-small' });
    expect(await vectorDims(p, remote, remoteDoc!)).toBe(16);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => (r.json as { model: string }).model === 'text-embedding-3-small')).toBe(true);

    const query = 'how does a clutch transfer torque';
    const hits = await search(p, remote, query);
    expect(hits[0]).toMatchObject({ document_id: remoteDoc, vector_rank: expect.any(Number) });
    expect(embeddedInputs()).toContain(query); // the query went to the preset's model too

    server.requests.length = 0;
    const { 'volcanoes.txt': localDoc } = await ingestCorpus(p, local, ['volcanoes.txt']);
    expect(await document(p, local, localDoc!)).toMatchObject({ embedding_model: 'local:minilm-l6-random' });
    expect(await vectorDims(p, local, localDoc!)).toBe(384);
    expect((await search(p, local, 'lava and magma'))[0]).toMatchObject({ vector_rank: expect.any(Number) });
    expect(server.requests).toHaveLength(0);
  });

  it("re-embeds the agents' documents when it changes, keeping their chunks", async () => {
    const preset = await createPreset(remoteEmbeddings);
    const agent = (await createAgent(p, { preset_id: preset })).id;
    const ids = await ingestCorpus(p, agent, ['clutch.txt', 'tea.md']);
    const before = await document(p, agent, ids['tea.md']!);

    const patch = await p.request('PATCH', `/admin/v1/presets/${preset}`, { body: { embeddings: localEmbeddings } });
    expect(patch.status).toBe(200);
    for (const id of Object.values(ids)) {
      const after = await reembedded(p, agent, id, 'local:Xenova/all-MiniLM-L6-v2');
      expect(await vectorDims(p, agent, id)).toBe(384);
      if (id === ids['tea.md']) expect(after.chunk_count).toBe(before.chunk_count);
    }
    server.requests.length = 0;
    const hits = await search(p, agent, 'green tea leaves');
    expect(hits[0]).toMatchObject({ vector_rank: expect.any(Number) });
    expect(server.requests).toHaveLength(0); // queries use the new model as well
  });

  it("re-embeds an agent's documents when it moves to another preset, to one without embeddings, or to none", async () => {
    const preset = await createPreset(remoteEmbeddings);
    const agent = (await createAgent(p)).id;
    const { 'saturn.md': doc } = await ingestCorpus(p, agent, ['saturn.md']);
    expect(await document(p, agent, doc!)).toMatchObject({ embedding_model: 'local:minilm-l6-random' });

    expect((await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { preset_id: preset } })).status).toBe(200);
    await reembedded(p, agent, doc!, 'openai:text-embedding-3-small');
    expect(await vectorDims(p, agent, doc!)).toBe(16);

    // A preset without an embeddings section uses the deployment default, as no preset does.
    const plain = await createPreset();
    expect((await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { preset_id: plain } })).status).toBe(200);
    await reembedded(p, agent, doc!, 'local:minilm-l6-random');
    expect(await vectorDims(p, agent, doc!)).toBe(384);

    expect((await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { preset_id: preset } })).status).toBe(200);
    await reembedded(p, agent, doc!, 'openai:text-embedding-3-small');
    expect((await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { preset_id: null } })).status).toBe(200);
    await reembedded(p, agent, doc!, 'local:minilm-l6-random');
  });

  it('searches documents of another model by BM25 only until they are re-embedded', async () => {
    const preset = await createPreset(remoteEmbeddings);
    const agent = (await createAgent(p, { preset_id: preset })).id;
    const { 'clutch.txt': doc } = await ingestCorpus(p, agent, ['clutch.txt']);
    // Straight to the store, past the route that queues re-embedding: what a change leaves behind before it ran.
    await p.parley.store.agents.update(agent, { preset_id: null });
    server.requests.length = 0;
    const hits = await search(p, agent, 'clutch torque gearbox');
    expect(hits[0]).toMatchObject({ document_id: doc, bm25_rank: 1, vector: null, vector_rank: null });
    expect(server.requests).toHaveLength(0); // no vectors of the agent's model: the query is not embedded
    expect(await document(p, agent, doc!)).toMatchObject({ embedding_model: 'openai:text-embedding-3-small' });
  });

  it('re-embeds on start what the deployment default no longer matches', async () => {
    await p.close();
    const before = await startParley(redis, env({ PARLEY_EMBEDDING_PROVIDER: 'openai', PARLEY_EMBEDDING_MODEL: 'v1' }));
    let agent: string;
    let doc: string;
    try {
      agent = (await createAgent(before)).id;
      ({ 'tea.md': doc } = (await ingestCorpus(before, agent, ['tea.md'])) as { 'tea.md': string });
      expect(await document(before, agent, doc)).toMatchObject({ embedding_model: 'openai:v1' });
    } finally {
      await before.close();
    }
    p = await startParley(redis, env(), { providers });
    await reembedded(p, agent, doc, 'local:minilm-l6-random');
    expect(await vectorDims(p, agent, doc)).toBe(384);
  });
});
