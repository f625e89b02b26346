import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blobToVector } from '../../src/store/repositories/document-vectors.js';
import { TestRedis } from '../support/redis-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { corpusFile, ingestCorpus, ragEnv, uploadFile, waitForDocument } from './rag-helpers.js';
import { createAgent } from '../support/agents.js';

let redis: TestRedis;
let p: TestParley;
beforeAll(async () => {
  redis = await TestRedis.start();
  p = await startParley(redis, {
    ...ragEnv,
    PARLEY_RAG_MAX_UPLOAD_BYTES: String(64 * 1024),
    PARLEY_JSON_LIMIT_BYTES: String(96 * 1024),
  });
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
});

const unknownAgent = 'agt_01jd3n6v8m0000000000000000';
const unknownDoc = 'doc_01jd3n6v8m0000000000000000';

describe('uploading documents', () => {
  it('accepts text, Markdown, HTML and PDF files and JSON text, answering 202 processing, then ready', async () => {
    const agent = (await createAgent(p)).id;
    const files = ['sourdough.txt', 'lighthouses.md', 'beekeeping.html', 'glaciers.pdf'];
    const uploaded: Record<string, Record<string, unknown>> = {};
    for (const file of files) {
      const res = await uploadFile(p, agent, { name: file, data: corpusFile(file) });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`/admin/v1/agents/${agent}/documents/${res.body.id}`);
      uploaded[file] = res.body;
    }
    const json = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'Clutch notes', text: corpusFile('clutch.txt').toString('utf8') },
    });
    expect(json.status).toBe(202);

    expect(uploaded['lighthouses.md']).toMatchObject({
      agent_id: agent,
      name: 'lighthouses.md',
      type: 'markdown',
      size_bytes: corpusFile('lighthouses.md').length,
      chunk_count: 0,
      text_chars: null,
      embedding_model: 'local:minilm-l6-random',
      status: 'processing',
      error: null,
    });
    expect(uploaded['lighthouses.md']!['sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(uploaded['lighthouses.md']!['id']).toMatch(/^doc_/);
    expect(Object.values(uploaded).map((d) => d['type'])).toEqual(['text', 'markdown', 'html', 'pdf']);
    expect(json.body).toMatchObject({ name: 'Clutch notes', type: 'text' });

    for (const doc of [...Object.values(uploaded), json.body]) {
      const ready = await waitForDocument(p, agent, doc['id'] as string);
      expect(ready).toMatchObject({ status: 'ready', error: null });
      expect(ready['chunk_count']).toBeGreaterThan(0);
      expect(ready['text_chars']).toBeGreaterThan(100);
      // the raw upload is gone once processed
      expect(await p.parley.store.documents.raw(agent, doc['id'] as string)).toBeNull();
    }

    const search = await p.request(
      'GET',
      `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent('What is a moraine?')}`,
    );
    expect(search.body.data[0]).toMatchObject({ document_id: uploaded['glaciers.pdf']!['id'], bm25_rank: 1 });
    const html = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=waggle+dance+direction`);
    expect(html.body.data[0].text).toContain('The angle of the dance');
    expect(html.body.data[0].text).not.toContain('console.log');
  });

  it('lists newest first with paging and a status filter', async () => {
    const agent = (await createAgent(p)).id;
    const ids = await ingestCorpus(p, agent, ['tea.md', 'saturn.md', 'chess.html']);
    const failed = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'only script', type: 'html', text: '<html><script>var x = 1;</script></html>' },
    });
    expect(failed.status).toBe(202);
    const doc = await waitForDocument(p, agent, failed.body.id);
    expect(doc).toMatchObject({ status: 'failed', chunk_count: 0 });
    expect(doc['error']).toMatch(/no text/);

    const page1 = await p.request('GET', `/admin/v1/agents/${agent}/documents?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((d: { id: string }) => d.id)).toEqual([failed.body.id, ids['chess.html']]);
    const page2 = await p.request(
      'GET',
      `/admin/v1/agents/${agent}/documents?limit=2&cursor=${page1.body.next_cursor}`,
    );
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([ids['saturn.md'], ids['tea.md']]);
    expect(page2.body.next_cursor).toBeNull();
    const ready = await p.request('GET', `/admin/v1/agents/${agent}/documents?status=ready`);
    expect(ready.body.data).toHaveLength(3);
    const onlyFailed = await p.request('GET', `/admin/v1/agents/${agent}/documents?status=failed`);
    expect(onlyFailed.body.data.map((d: { id: string }) => d.id)).toEqual([failed.body.id]);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents?status=done`)).status).toBe(400);
  });

  it('detects the same content uploaded twice for one agent (409 with the existing id), but not across agents', async () => {
    const agent = (await createAgent(p)).id;
    const first = await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') });
    expect(first.status).toBe(202);
    const again = await uploadFile(p, agent, { name: 'renamed.md', data: corpusFile('tea.md') }, 'Tea again');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', details: { document_id: first.body.id } });
    const asJson = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'tea', type: 'markdown', text: corpusFile('tea.md').toString('utf8') },
    });
    expect(asJson.status).toBe(409);
    const other = (await createAgent(p)).id;
    expect((await uploadFile(p, other, { name: 'tea.md', data: corpusFile('tea.md') })).status).toBe(202);
    // after deleting, the same content may come back
    await waitForDocument(p, agent, first.body.id);
    expect((await p.request('DELETE', `/admin/v1/agents/${agent}/documents/${first.body.id}`)).status).toBe(204);
    expect((await uploadFile(p, agent, { name: 'tea.md', data: corpusFile('tea.md') })).status).toBe(202);
  });

  it('refuses bad uploads with clear 4xx errors', async () => {
    const agent = (await createAgent(p)).id;
    const big = Buffer.alloc(64 * 1024 + 1, 'a');
    const tooBig = await uploadFile(p, agent, { name: 'big.txt', data: big });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toMatchObject({ code: 'payload_too_large', details: { limit_bytes: 65536 } });
    const jsonTooBig = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'big', text: 'b'.repeat(70 * 1024) },
    });
    expect(jsonTooBig.status).toBe(413);
    const overJsonLimit = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'big', text: 'b'.repeat(100 * 1024) },
    });
    expect(overJsonLimit.status).toBe(413);
    expect(overJsonLimit.body.error.code).toBe('payload_too_large');

    const png = await uploadFile(p, agent, {
      name: 'photo.png',
      data: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
      type: 'image/png',
    });
    expect(png.status).toBe(415);
    expect(png.body.error.code).toBe('unsupported_media_type');
    const csv = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      rawBody: 'a,b\n1,2',
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(csv.status).toBe(415);

    const empty = await uploadFile(p, agent, { name: 'empty.txt', data: Buffer.alloc(0) });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('empty_document');
    const blank = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'blank', text: '   \n ' },
    });
    expect(blank.status).toBe(400);
    const notPdf = await uploadFile(p, agent, { name: 'fake.pdf', data: 'plain words, not a PDF' });
    expect(notPdf.status).toBe(400);
    expect(notPdf.body.error.code).toBe('unreadable_document');
    const corrupt = await uploadFile(p, agent, { name: 'corrupt.pdf', data: '%PDF-1.4\n1 0 obj <<' });
    expect(corrupt.status).toBe(400);
    const binary = await uploadFile(p, agent, { name: 'bin.txt', data: Buffer.from([0x00, 0xff, 0x10]) });
    expect(binary.status).toBe(400);

    const noFile = new FormData();
    noFile.append('name', 'x');
    const res = await fetch(`${p.url}/admin/v1/agents/${agent}/documents`, {
      method: 'POST',
      headers: { 'X-API-Key': 'test-admin-key-0123456789' },
      body: noFile,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe('body.file');
    const missing = await p.request('POST', `/admin/v1/agents/${agent}/documents`, { body: { text: 'hello' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ path: 'body.name', message: expect.any(String) }]);
    const badType = await p.request('POST', `/admin/v1/agents/${agent}/documents`, {
      body: { name: 'x', text: 'hi', type: 'pdf' },
    });
    expect(badType.status).toBe(400);

    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents`)).body.data).toEqual([]);
  });

  it('answers 404 for unknown agents and documents and 400 for malformed ids', async () => {
    const agent = (await createAgent(p)).id;
    expect((await uploadFile(p, unknownAgent, { name: 'tea.md', data: corpusFile('tea.md') })).status).toBe(404);
    expect((await p.request('GET', `/admin/v1/agents/${unknownAgent}/documents`)).status).toBe(404);
    expect((await p.request('GET', `/admin/v1/agents/${unknownAgent}/documents/search?q=x`)).status).toBe(404);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents/${unknownDoc}`)).status).toBe(404);
    expect((await p.request('DELETE', `/admin/v1/agents/${agent}/documents/${unknownDoc}`)).status).toBe(404);
    const bad = await p.request('DELETE', `/admin/v1/agents/${agent}/documents/nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('params.doc_id');
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents`, { apiKey: null })).status).toBe(401);
  });
});

describe('search', () => {
  it('ranks chunks by BM25 and vectors, fused, with document ids and scores; k defaults to 5, at most 50', async () => {
    const agent = (await createAgent(p)).id;
    const ids = await ingestCorpus(p, agent, ['lighthouses.md', 'saturn.md', 'tea.md', 'volcanoes.txt', 'clutch.txt']);
    const res = await p.request(
      'GET',
      `/admin/v1/agents/${agent}/documents/search?q=${encodeURIComponent('Who invented the Fresnel lens?')}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.query).toBe('Who invented the Fresnel lens?');
    expect(res.body.k).toBe(5);
    expect(res.body.data).toHaveLength(5);
    const hit = res.body.data.find((h: { bm25_rank: number | null }) => h.bm25_rank === 1);
    expect(hit).toMatchObject({ document_id: ids['lighthouses.md'], document_name: 'lighthouses.md' });
    expect(hit.text).toContain('Augustin-Jean Fresnel');
    expect(hit.chunk_id).toMatch(new RegExp(`^${ids['lighthouses.md']}#\\d+$`));
    for (const h of res.body.data) {
      expect(h.vector_rank).toEqual(expect.any(Number)); // every chunk has a vector
      expect(h.vector).toBeGreaterThanOrEqual(-1);
      expect(h.vector).toBeLessThanOrEqual(1.0001);
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
    const scores = res.body.data.map((h: { score: number }) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    const three = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=water&k=3`);
    expect(three.body.data).toHaveLength(3);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=water&k=51`)).status).toBe(400);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=water&k=0`)).status).toBe(400);
    expect((await p.request('GET', `/admin/v1/agents/${agent}/documents/search`)).status).toBe(400);
    const other = (await createAgent(p)).id;
    expect((await p.request('GET', `/admin/v1/agents/${other}/documents/search?q=Fresnel`)).body.data).toEqual([]);
  });

  it('keeps vectors in Redis as float32 blobs: one 384-dimensional unit vector per chunk', async () => {
    const agent = (await createAgent(p)).id;
    const ids = await ingestCorpus(p, agent, ['lighthouses.md']);
    const [stored] = await p.parley.store.documents.loadReady(agent);
    expect(stored!.chunks.length).toBeGreaterThan(1);
    for (const chunk of stored!.chunks) {
      const blob = await p.parley.store.documents.vectorBlob(agent, ids['lighthouses.md']!, chunk.id);
      expect(blob).toBeInstanceOf(Buffer);
      expect(blob!.length).toBe(384 * 4);
      const v = blobToVector(blob!);
      expect(Math.sqrt(v.reduce((s, x) => s + x * x, 0))).toBeCloseTo(1, 4);
    }
    // chunk offsets slice the extracted text back
    const text = stored!.chunks.map((c) => c.text);
    expect(text.some((t) => t.startsWith('## The Fresnel lens'))).toBe(true);
  });

  it('forgets a deleted document: its chunks, vectors and search hits', async () => {
    const agent = (await createAgent(p)).id;
    const ids = await ingestCorpus(p, agent, ['lighthouses.md', 'saturn.md']);
    const before = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=Fresnel+lens&k=50`);
    expect(before.body.data.some((h: { document_id: string }) => h.document_id === ids['lighthouses.md'])).toBe(true);

    const del = await p.request('DELETE', `/admin/v1/agents/${agent}/documents/${ids['lighthouses.md']}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    const keys = p.parley.store.keys;
    for (const key of [
      keys.document(agent, ids['lighthouses.md']!),
      keys.documentChunks(agent, ids['lighthouses.md']!),
      keys.documentVectors(agent, ids['lighthouses.md']!),
      keys.documentRaw(agent, ids['lighthouses.md']!),
    ])
      expect(await p.parley.redis.exists(key)).toBe(0);
    const after = await p.request('GET', `/admin/v1/agents/${agent}/documents/search?q=Fresnel+lens&k=50`);
    expect(after.body.data.length).toBeGreaterThan(0); // saturn's chunks still rank by vector
    expect(after.body.data.every((h: { document_id: string }) => h.document_id === ids['saturn.md'])).toBe(true);
    expect(after.body.data.every((h: { bm25: number | null }) => h.bm25 === null)).toBe(true);
    expect((await p.request('DELETE', `/admin/v1/agents/${agent}/documents/${ids['lighthouses.md']}`)).status).toBe(
      404,
    );
  });
});
