import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors/app-errors.js';
import type { ErrorRecord } from '../../src/schemas/error-record.js';
import { parleyForFile } from '../support/parley.js';
import { createAgent } from '../support/agents.js';

const bed = parleyForFile();

const unknownError = 'err_01jd3n6v8m0000000000000000';
const hour = 3_600_000;

function ids(body: { data: { id: string }[] }): string[] {
  return body.data.map((e) => e.id);
}

describe('GET /admin/v1/errors', () => {
  it('lists newest first, paged by cursor', async () => {
    const base = Date.now() - 5 * hour;
    const recorded: ErrorRecord[] = [];
    for (let i = 0; i < 5; i++)
      recorded.push(await bed.p.parley.store.errors.record({ type: 'llm_error', message: `e${i}` }, base + i));
    const expected = recorded.map((e) => e.id).reverse();
    const page1 = await bed.p.request('GET', '/admin/v1/errors?limit=4');
    expect(page1.status).toBe(200);
    expect(ids(page1.body)).toEqual(expected.slice(0, 4));
    const page2 = await bed.p.request('GET', `/admin/v1/errors?limit=4&cursor=${page1.body.next_cursor}`);
    expect(ids(page2.body)).toEqual(expected.slice(4));
    expect(page2.body.next_cursor).toBeNull();
    expect(page2.body.data[0]).toEqual({
      id: recorded[0]!.id,
      type: 'llm_error',
      message: 'e0',
      agent_id: null,
      session_id: null,
      status_code: null,
      latency_ms: null,
      details: {},
      status: 'open',
      resolved_at: null,
      resolution_note: null,
      created_at: new Date(base).toISOString(),
    });
  });

  it('filters by agent, session, type, status and time', async () => {
    const a = (await createAgent(bed.p, { name: 'a' })).id;
    const b = (await createAgent(bed.p, { name: 'b' })).id;
    const session = await bed.p.parley.store.sessions.create({ agent_id: a, type: 'chat', transport: 'chat' });
    const errors = bed.p.parley.store.errors;
    const base = Date.now() - 5 * hour;
    const e1 = await errors.record(
      {
        type: 'webhook_http_error',
        message: 'webhook answered 500',
        agent_id: a,
        session_id: session.id,
        status_code: 500,
        latency_ms: 12.5,
        details: { url: 'http://hook' },
      },
      base,
    );
    const e2 = await errors.record(
      { type: 'webhook_timeout', message: 'no answer in 30000 ms', agent_id: a, latency_ms: 30000 },
      base + 1000,
    );
    const e3 = await errors.record(
      { type: 'webhook_http_error', message: 'webhook answered 502', agent_id: b, status_code: 502 },
      base + 2000,
    );
    await errors.resolve(e3.id);

    const byAgent = await bed.p.request('GET', `/admin/v1/errors?agent_id=${a}`);
    expect(ids(byAgent.body)).toEqual([e2.id, e1.id]);
    const bySession = await bed.p.request('GET', `/admin/v1/errors?session_id=${session.id}`);
    expect(ids(bySession.body)).toEqual([e1.id]);
    expect(bySession.body.data[0]).toMatchObject({
      status_code: 500,
      latency_ms: 12.5,
      details: { url: 'http://hook' },
    });
    const byType = await bed.p.request('GET', '/admin/v1/errors?type=webhook_http_error');
    expect(ids(byType.body)).toEqual([e3.id, e1.id]);
    const open = await bed.p.request('GET', '/admin/v1/errors?status=open&type=webhook_http_error');
    expect(ids(open.body)).toEqual([e1.id]);
    const resolved = await bed.p.request('GET', '/admin/v1/errors?status=resolved');
    expect(ids(resolved.body)).toEqual([e3.id]);
    const from = new Date(base + 500).toISOString();
    const window = await bed.p.request(
      'GET',
      `/admin/v1/errors?from=${from}&to=${new Date(base + 1500).toISOString()}`,
    );
    expect(ids(window.body)).toEqual([e2.id]);
  });

  it('rejects bad limits and filters with 400', async () => {
    for (const query of [
      'limit=-1',
      'limit=1.5',
      'status=closed',
      'agent_id=agt_x',
      'session_id=nope',
      'type=',
      'from=1',
      'cursor=%21',
    ]) {
      const res = await bed.p.request('GET', `/admin/v1/errors?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

describe('GET /admin/v1/errors/:id', () => {
  it('returns the record, 404 for an unknown id, 400 for junk', async () => {
    const e = await bed.p.parley.store.errors.record({
      type: 'session_failed',
      message: 'boom',
      details: { stage: 'stt' },
    });
    const ok = await bed.p.request('GET', `/admin/v1/errors/${e.id}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(e);
    const nf = await bed.p.request('GET', `/admin/v1/errors/${unknownError}`);
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe('not_found');
    for (const junk of ['nope', 'ses_01jd3n6v8m0000000000000000', 'stats']) {
      const bad = await bed.p.request('GET', `/admin/v1/errors/${junk}`);
      expect(bad.status, junk).toBe(400);
    }
  });
});

describe('POST /admin/v1/errors/:id/resolve', () => {
  it('resolves once: the first resolved_at and note stay, open counters drop once', async () => {
    const agent = (await createAgent(bed.p)).id;
    const errors = bed.p.parley.store.errors;
    const e = await errors.record({ type: 'webhook_timeout', message: 'slow', agent_id: agent });
    await errors.record({ type: 'webhook_timeout', message: 'slow again', agent_id: agent });
    const first = await bed.p.request('POST', `/admin/v1/errors/${e.id}/resolve`, {
      body: { note: 'webhook host restarted' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: e.id, status: 'resolved', resolution_note: 'webhook host restarted' });
    expect(first.body.resolved_at).not.toBeNull();
    const again = await Promise.all([
      bed.p.request('POST', `/admin/v1/errors/${e.id}/resolve`, { body: { note: 'second' } }),
      bed.p.request('POST', `/admin/v1/errors/${e.id}/resolve`),
    ]);
    for (const res of again) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(first.body);
    }
    const summary = await bed.p.request('GET', '/admin/v1/errors/stats/summary');
    expect(summary.body).toMatchObject({
      total: 2,
      open: 1,
      resolved: 1,
      by_type: { webhook_timeout: { total: 2, open: 1 } },
    });
    const stats = await bed.p.request('GET', `/admin/v1/agents/${agent}/stats`);
    expect(stats.body.errors).toEqual({ total: 2, open: 1 });
  });

  it('accepts no body at all', async () => {
    const e = await bed.p.parley.store.errors.record({ type: 'llm_error', message: 'x' });
    const res = await bed.p.request('POST', `/admin/v1/errors/${e.id}/resolve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'resolved', resolution_note: null });
  });

  it('answers 404 for an unknown id and 400 for bad input', async () => {
    const nf = await bed.p.request('POST', `/admin/v1/errors/${unknownError}/resolve`, { body: {} });
    expect(nf.status).toBe(404);
    await expect(bed.p.parley.store.errors.resolve(unknownError)).rejects.toBeInstanceOf(NotFoundError);
    const e = await bed.p.parley.store.errors.record({ type: 'llm_error', message: 'x' });
    const cases: [string, { body?: unknown; rawBody?: string; headers?: Record<string, string> }][] = [
      ['/admin/v1/errors/nope/resolve', { body: {} }],
      [`/admin/v1/errors/${e.id}/resolve`, { body: { note: 'x'.repeat(2001) } }],
      [`/admin/v1/errors/${e.id}/resolve`, { body: { note: 42 } }],
      [`/admin/v1/errors/${e.id}/resolve`, { body: { status: 'open' } }],
      [`/admin/v1/errors/${e.id}/resolve`, { rawBody: '{"note":', headers: { 'Content-Type': 'application/json' } }],
    ];
    for (const [path, options] of cases) {
      const res = await bed.p.request('POST', path, options);
      expect(res.status, JSON.stringify(options)).toBe(400);
      expect(['validation_error', 'invalid_json']).toContain(res.body.error.code);
    }
    expect((await bed.p.parley.store.errors.get(e.id)).status).toBe('open');
  });
});

describe('GET /admin/v1/errors/stats/summary', () => {
  it('counts by type, status and recency', async () => {
    const errors = bed.p.parley.store.errors;
    const now = Date.now();
    await errors.record({ type: 'event_delivery_failed', message: 'old' }, now - 48 * hour);
    const e = await errors.record({ type: 'llm_error', message: 'a' }, now - hour);
    await errors.record({ type: 'llm_error', message: 'b' }, now - hour);
    await errors.resolve(e.id);
    const res = await bed.p.request('GET', '/admin/v1/errors/stats/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 3,
      open: 2,
      resolved: 1,
      by_type: { event_delivery_failed: { total: 1, open: 1 }, llm_error: { total: 2, open: 1 } },
      last_24h: 2,
    });
  });
});

describe('authentication', () => {
  it.each([
    ['GET', '/admin/v1/errors'],
    ['GET', `/admin/v1/errors/${unknownError}`],
    ['GET', '/admin/v1/errors/stats/summary'],
    ['POST', `/admin/v1/errors/${unknownError}/resolve`],
  ])('%s %s needs the admin key', async (method, path) => {
    const missing = await bed.p.request(method, path, { apiKey: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await bed.p.request(method, path, { apiKey: 'wrong-key' });
    expect(wrong.status).toBe(401);
  });
});

describe('restart', () => {
  it('keeps error records and counters across a Parley restart', async () => {
    const agent = (await createAgent(bed.p)).id;
    const e = await bed.p.parley.store.errors.record({
      type: 'webhook_invalid_response',
      message: 'no response field',
      agent_id: agent,
      status_code: 200,
    });
    await bed.restart();
    const got = await bed.p.request('GET', `/admin/v1/errors/${e.id}`);
    expect(got.body).toEqual(e);
    const resolved = await bed.p.request('POST', `/admin/v1/errors/${e.id}/resolve`, { body: { note: 'fixed' } });
    expect(resolved.body.status).toBe('resolved');
    const summary = await bed.p.request('GET', '/admin/v1/errors/stats/summary');
    expect(summary.body).toMatchObject({ total: 1, open: 0, resolved: 1 });
    const stats = await bed.p.request('GET', `/admin/v1/agents/${agent}/stats`);
    expect(stats.body.errors).toEqual({ total: 1, open: 0 });
  });
});

describe('OpenAPI', () => {
  it('documents every route with its operation id and error responses', async () => {
    const doc = await bed.p.request('GET', '/openapi.json', { apiKey: null });
    for (const [path, method, operationId] of [
      ['/admin/v1/errors', 'get', 'listErrors'],
      ['/admin/v1/errors/stats/summary', 'get', 'getErrorSummary'],
      ['/admin/v1/errors/{id}', 'get', 'getError'],
      ['/admin/v1/errors/{id}/resolve', 'post', 'resolveError'],
    ]) {
      const op = doc.body.paths[path!]?.[method!];
      expect(op?.operationId, path).toBe(operationId);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '500']));
      if (path!.includes('{id}')) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '404']));
    }
  });
});
