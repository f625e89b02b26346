import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestRedis } from '../support/redis-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { corpusFile, ingestCorpus, ragEnv, uploadFile, waitForDocument } from './rag-helpers.js';
import { createAgent } from '../support/agents.js';

let redis: TestRedis;
const open: TestParley[] = [];
async function parley(env: Record<string, string> = {}): Promise<TestParley> {
  const p = await startParley(redis, { ...ragEnv, ...env });
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
afterAll(async () => {
  for (const p of open) await p.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
});

const questions = [
  'Who invented the Fresnel lens?',
  'What are the rings of Saturn made of?',
  'How do bees find flowers?',
  'glacier moraine',
];

async function searchAll(p: TestParley, agent: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of questions)
    out.push(
      (await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent(q)}&k=8`)).body.data,
    );
  return out;
}

describe('index rebuild and instances', () => {
  it('rebuilds the index from Redis on start with identical search results', async () => {
    const a = await parley();
    const agent = (await createAgent(a)).id;
    await ingestCorpus(a, agent, ['lighthouses.md', 'saturn.md', 'beekeeping.html', 'glaciers.pdf']);
    const before = await searchAll(a, agent);
    await close(a);
    const b = await parley();
    // warmed on start: seconds, more than 10 under a whole suite's load on a slow 2-core machine
    await expect.poll(() => b.parley.services.rag.index.loadedChunks(agent), { timeout: 40_000 }).toBeGreaterThan(0);
    expect(await searchAll(b, agent)).toEqual(before);
  }, 90_000);

  it('keeps indexes of two instances in step with uploads and deletes made through either', async () => {
    const a = await parley();
    const b = await parley();
    const agent = (await createAgent(a)).id;
    const ids = await ingestCorpus(a, agent, ['lighthouses.md']);
    expect((await searchAll(b, agent))[0]).toEqual((await searchAll(a, agent))[0]);
    const viaB = await ingestCorpus(b, agent, ['saturn.md']);
    const onA = await a.request('GET', `/admin/v1/agents/${agent}/documents/search?q=Saturn+rings`);
    expect(onA.body.data[0].document_id).toBe(viaB['saturn.md']);
    expect((await b.request('DELETE', `/admin/v1/agents/${agent}/documents/${ids['lighthouses.md']}`)).status).toBe(
      204,
    );
    const gone = await a.request('GET', `/admin/v1/agents/${agent}/documents/search?q=Fresnel+lens&k=50`);
    expect(gone.body.data.every((h: { document_id: string }) => h.document_id === viaB['saturn.md'])).toBe(true);
  });
});

describe('restart mid-ingestion', () => {
  it('finishes a document queued while no instance was ingesting', async () => {
    const apiOnly = await parley({ PARLEY_RAG_INGEST_CONCURRENCY: '0' });
    const agent = (await createAgent(apiOnly)).id;
    const res = await uploadFile(apiOnly, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    expect(res.status).toBe(202);
    expect(await apiOnly.parley.services.rag.ingestion.backlog()).toBe(1);
    await close(apiOnly);

    const worker = await parley();
    expect(await waitForDocument(worker, agent, res.body.id)).toMatchObject({ status: 'ready' });
    expect(await worker.parley.store.documents.raw(agent, res.body.id)).toBeNull();
  });

  it('finishes a document whose instance stopped while processing it', async () => {
    const first = await parley({ PARLEY_RAG_JOB_LOCK_MS: '1000' });
    const agent = (await createAgent(first)).id;
    // Large enough that embedding takes a while on the first instance.
    const text = Array.from({ length: 60 }, (_, i) =>
      corpusFile('lighthouses.md')
        .toString('utf8')
        .replace(/Lighthouses/g, `Lighthouses ${i}`),
    ).join('\n\n');
    const res = await first.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'long', type: 'markdown', text },
    });
    expect(res.status).toBe(202);
    await expect
      .poll(() => first.parley.services.rag.ingestion.activeJobs(), { timeout: 10_000, interval: 20 })
      .toBe(1);
    await close(first); // abandons the running job; its lock expires

    const second = await parley({ PARLEY_RAG_JOB_LOCK_MS: '1000' });
    const doc = await waitForDocument(second, agent, res.body.id, 90_000);
    expect(doc).toMatchObject({ status: 'ready', error: null });
    expect(doc['chunk_count']).toBeGreaterThan(60);
    const hits = await second.request('GET', `/admin/v1/agents/${agent}/documents/search?q=Fresnel`);
    expect(hits.body.data[0].document_id).toBe(res.body.id);
  }, 120_000);
});
