import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiEmbeddingsServer } from '../support/openai-embeddings-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { testModelsDir } from '../support/test-models.js';
import { corpusFile, ragEnv, uploadFile, waitForDocument } from './rag-helpers.js';

// RAG on a box without an embedding model (issue 20, item 3): keyword search until a model is there.

let redis: TestRedis;
let webhook: HttpReceiver;
let emptyModels: string;
const open: TestParley[] = [];

/** A Parley whose MODELS_DIR is empty (no embedding model) or holds the test models. */
async function parley(models: 'none' | 'installed', env: Record<string, string> = {}): Promise<TestParley> {
  const modelsDir = models === 'none' ? emptyModels : await testModelsDir();
  const p = await startParley(redis, { ...ragEnv, MODELS_DIR: modelsDir, ...env });
  open.push(p);
  return p;
}
async function close(p: TestParley): Promise<void> {
  open.splice(open.indexOf(p), 1);
  await p.close();
}

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'from the webhook' } }));
  emptyModels = await mkdtemp(join(tmpdir(), 'parley-no-models-'));
});
afterAll(async () => {
  for (const p of open) await p.close();
  await webhook?.close();
  await redis?.close();
  if (emptyModels !== undefined) await rm(emptyModels, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const p of [...open]) await close(p);
  await redis.flush();
  webhook.requests.length = 0;
});

type Doc = Record<string, unknown>;

async function search(p: TestParley, agent: string, q: string): Promise<Record<string, unknown>[]> {
  const res = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function getDoc(p: TestParley, agent: string, id: string): Promise<Doc> {
  return (await p.request('GET', `/admin/v1/agents/${agent}/documents/${id}`)).body as Doc;
}

describe('without an embedding model', () => {
  it('makes an upload ready on the lexical index, finds it, and sends its context to the webhook', async () => {
    const p = await parley('none');
    const agent = await createAgent(p, { mode: 'passthrough', webhook_url: webhook.url, rag_enabled: true });
    const res = await uploadFile(p, agent.id, { name: 'lighthouses.md', data: corpusFile('lighthouses.md') });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'processing', search_index: null, vectors_error: null });

    const doc = await waitForDocument(p, agent.id, res.body.id);
    expect(doc).toMatchObject({ status: 'ready', error: null, search_index: 'lexical' });
    expect(doc['chunk_count']).toBeGreaterThan(0);
    const why = doc['vectors_error'] as string;
    // Names the missing model, where it was looked for, and both fixes; no transformers.js internals.
    expect(why).toContain('minilm-l6-random');
    expect(why).toContain(emptyModels);
    expect(why).toContain('config.json and onnx/');
    expect(why).toContain('npm run models');
    expect(why).toContain('OPENAI_API_KEY');
    expect(why).not.toMatch(/local_files_only|transformers/i);

    const hits = await search(p, agent.id, 'Who invented the Fresnel lens?');
    expect(hits[0]).toMatchObject({ document_id: doc['id'], bm25_rank: 1, vector: null, vector_rank: null });

    const chat = await p.request('POST', '/sdk/v1/chat', {
      body: { agent_token: agent.agent_token, message: 'Who invented the Fresnel lens?' },
      apiKey: null,
    });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    expect(chat.body.response).toBe('from the webhook');
    const context = (webhook.requests[0]!.json as { data: { context: string | null } }).data.context;
    expect(context).toContain('[lighthouses.md]');
    expect(context).toContain('Fresnel');
  });

  it('names the API settings when the OpenAI provider has neither key nor address', async () => {
    const p = await parley('none', {
      PARLEY_EMBEDDING_PROVIDER: 'openai',
      PARLEY_EMBEDDING_MODEL: 'text-embedding-3-small',
    });
    const agent = (await createAgent(p)).id;
    const res = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    const doc = await waitForDocument(p, agent, res.body.id);
    expect(doc).toMatchObject({
      status: 'ready',
      search_index: 'lexical',
      embedding_model: 'openai:text-embedding-3-small',
    });
    expect(doc['vectors_error']).toMatch(/no embedding API for openai:text-embedding-3-small: set OPENAI_API_KEY/);
  });
});

describe('/openapi.json', () => {
  it('documents search_index, vectors_error and the retry route', async () => {
    const p = await parley('none');
    const doc = (await p.request('GET', '/openapi.json', { apiKey: null })).body;
    const props = doc.components.schemas.Document.properties;
    expect(props.search_index.description).toMatch(/lexical/);
    expect(props.vectors_error.description).toMatch(/missing model/);
    const retry = doc.paths['/admin/v1/agents/{id}/documents/{doc_id}/retry'].post;
    expect(Object.keys(retry.responses)).toEqual(expect.arrayContaining(['202', '404', '409']));
  });
});

describe('once an embedding model is there', () => {
  it('adds the vectors of lexical documents in a background job on restart, without a new upload', async () => {
    const before = await parley('none');
    const agent = (await createAgent(before)).id;
    const res = await uploadFile(before, agent, { name: 'saturn.md', data: corpusFile('saturn.md') });
    const lexical = await waitForDocument(before, agent, res.body.id);
    expect(lexical).toMatchObject({ status: 'ready', search_index: 'lexical' });
    await close(before);

    const after = await parley('installed');
    await expect
      .poll(async () => (await getDoc(after, agent, res.body.id))['search_index'], { timeout: 60_000 })
      .toBe('hybrid');
    const hybrid = await getDoc(after, agent, res.body.id);
    expect(hybrid).toMatchObject({
      id: res.body.id,
      status: 'ready',
      vectors_error: null,
      embedding_model: 'local:minilm-l6-random',
    });
    expect(hybrid['chunk_count']).toBeGreaterThan(0);
    // Vectors are stored, for every chunk, and the upload is dropped once they are.
    const chunks = await after.parley.store.documents.chunks(agent, res.body.id);
    expect(chunks).toHaveLength(hybrid['chunk_count'] as number);
    for (const c of chunks)
      expect(await after.parley.store.documents.vectorBlob(agent, res.body.id, c.id)).not.toBeNull();
    expect(await after.parley.store.documents.raw(agent, res.body.id)).toBeNull();

    const hits = await search(after, agent, 'What are the rings of Saturn made of?');
    expect(hits[0]).toMatchObject({ document_id: res.body.id });
    expect(hits[0]!['vector_rank']).not.toBeNull();
    const list = await after.request('GET', `/admin/v1/agents/${agent}/documents`);
    expect(list.body.data).toHaveLength(1);
  });

  it('adds the vectors when the agent’s preset switches to usable embeddings', async () => {
    const server = await startOpenAiEmbeddingsServer(16);
    try {
      // The default (local) model is missing; the API is configured but no agent uses it yet.
      const p = await parley('none', {
        PARLEY_EMBEDDING_BASE_URL: server.baseUrl,
        PARLEY_EMBEDDING_API_KEY: 'sk-test',
      });
      const agent = (await createAgent(p)).id;
      const res = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
      expect(await waitForDocument(p, agent, res.body.id)).toMatchObject({ search_index: 'lexical' });
      expect(server.requests).toHaveLength(0);

      const embeddings = { provider: 'openai', model: 'text-embedding-3-small' };
      const preset = await p.request('POST', '/admin/v1/presets', { body: { name: 'remote', embeddings } });
      expect(preset.status, JSON.stringify(preset.body)).toBe(201);
      const patch = await p.request('PATCH', `/admin/v1/agents/${agent}`, { body: { preset_id: preset.body.id } });
      expect(patch.status).toBe(200);
      await expect
        .poll(async () => (await getDoc(p, agent, res.body.id))['search_index'], { timeout: 30_000 })
        .toBe('hybrid');
      expect(await getDoc(p, agent, res.body.id)).toMatchObject({
        embedding_model: 'openai:text-embedding-3-small',
        vectors_error: null,
      });
      expect(server.requests.length).toBeGreaterThan(0);
      const hits = await search(p, agent, 'tea');
      expect(hits[0]!['vector_rank']).not.toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe('failed documents', () => {
  const noText = { name: 'only script', type: 'html', text: '<html><script>var x = 1;</script></html>' };

  it('retries a failed document from its stored upload, and refuses other states and unknown ones', async () => {
    const p = await parley('none');
    const agent = (await createAgent(p)).id;
    const res = await p.request('POST', `/admin/v1/agents/${agent}/documents`, { body: noText });
    expect(res.status).toBe(202);
    const failed = await waitForDocument(p, agent, res.body.id);
    expect(failed).toMatchObject({ status: 'failed', search_index: null });
    expect(failed['error']).toMatch(/no text/);

    const retried = await p.request('POST', `/admin/v1/agents/${agent}/documents/${res.body.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body).toMatchObject({ id: res.body.id, status: 'processing', error: null });
    const again = await waitForDocument(p, agent, res.body.id);
    expect(again).toMatchObject({ status: 'failed' });
    expect(again['error']).toMatch(/no text/); // the job ran again on the same upload

    const ok = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    await waitForDocument(p, agent, ok.body.id);
    const notFailed = await p.request('POST', `/admin/v1/agents/${agent}/documents/${ok.body.id}/retry`);
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error).toMatchObject({ code: 'conflict', details: { status: 'ready' } });
    expect(notFailed.body.error.message).toMatch(/only a failed document can be retried/);
    const unknown = await p.request('POST', `/admin/v1/agents/${agent}/documents/doc_01jd3n6v8m0000000000000000/retry`);
    expect(unknown.status).toBe(404);
  });

  it('lets the content of a failed document be uploaded again, replacing it', async () => {
    const p = await parley('none');
    const agent = (await createAgent(p)).id;
    const first = await p.request('POST', `/admin/v1/agents/${agent}/documents`, { body: noText });
    expect((await waitForDocument(p, agent, first.body.id))['status']).toBe('failed');

    const second = await p.request('POST', `/admin/v1/agents/${agent}/documents`, { body: noText });
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents/${first.body.id}`)).status).toBe(404);
    const list = await p.request('GET', `/admin/v1/agents/${agent}/documents`);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([second.body.id]);

    // The same content as a document that is not failed is still refused.
    const ready = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    await waitForDocument(p, agent, ready.body.id);
    const dup = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details).toEqual({ document_id: ready.body.id });
  });
});
