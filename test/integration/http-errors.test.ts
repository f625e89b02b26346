import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWithin, startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

const jsonLimit = 2048;
let redis: TestRedis;
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  p = await startParley(redis, { PARLEY_JSON_LIMIT_BYTES: String(jsonLimit) });
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
});

/** The error shape of DESIGN.md: code, message, request_id equal to the header, nothing else but details. */
function expectError(res: TestResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  for (const key of Object.keys(res.body.error)) expect(['code', 'message', 'request_id', 'details']).toContain(key);
}

/** Nothing from inside the process: no stack frames, file paths, error class names or Redis wording. */
function expectNothingLeaked(res: TestResponse): void {
  const text = JSON.stringify(res.body);
  for (const leak of [
    /\bat .+:\d+/,
    /node_modules/,
    /\/src\//,
    /SyntaxError/,
    /Error:/,
    /JSON\.parse/,
    /Unexpected token/,
    /redis/i,
    /ECONNREFUSED/,
    /stack/,
  ]) {
    expect(text).not.toMatch(leak);
  }
}

describe('request bodies', () => {
  it('accepts a JSON body under the limit, charset parameter and all', async () => {
    const res = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'A', system_prompt: 'x'.repeat(jsonLimit / 2) },
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('answers 413 payload_too_large for a JSON body over PARLEY_JSON_LIMIT_BYTES', async () => {
    const res = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'A', system_prompt: 'x'.repeat(jsonLimit * 2) },
    });
    expectError(res, 413, 'payload_too_large');
    const patch = await p.request('PATCH', '/admin/v1/presets/pre_01jd3n6v8m0000000000000000', {
      body: { description: 'y'.repeat(jsonLimit) },
    });
    expectError(patch, 413, 'payload_too_large');
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    for (const raw of ['{"name": "A",', '{name: A}', "{'name':'A'}", '"just a string"', '42']) {
      const res = await p.request('POST', '/admin/v1/agents', {
        rawBody: raw,
        headers: { 'Content-Type': 'application/json' },
      });
      expectError(res, 400, 'invalid_json');
      expectNothingLeaked(res);
    }
  });

  it('answers 400 validation_error for JSON that is not an object', async () => {
    const res = await p.request('POST', '/admin/v1/agents', {
      rawBody: '[{"name":"A"}]',
      headers: { 'Content-Type': 'application/json' },
    });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.details).toEqual([{ path: 'body', message: expect.stringContaining('object') }]);
  });

  it('answers 415 unsupported_media_type for a body that is not JSON', async () => {
    const cases: [string, string | undefined][] = [
      ['name=A', 'application/x-www-form-urlencoded'],
      ['{"name":"A"}', 'text/plain'],
      ['<agent><name>A</name></agent>', 'application/xml'],
      ['--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nA\r\n--x--', 'multipart/form-data; boundary=x'],
    ];
    for (const [raw, type] of cases) {
      const res = await p.request('POST', '/admin/v1/agents', {
        rawBody: raw,
        headers: type === undefined ? {} : { 'Content-Type': type },
      });
      expectError(res, 415, 'unsupported_media_type');
      expect(res.body.error.message).toContain('application/json');
    }
    const patch = await p.request('PATCH', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000', {
      rawBody: 'name=B',
      headers: { 'Content-Type': 'text/plain' },
    });
    expectError(patch, 415, 'unsupported_media_type');
  });

  it('treats a POST with no body at all as an empty object', async () => {
    const res = await p.request('POST', '/admin/v1/agents');
    expectError(res, 400, 'validation_error');
    expect(res.body.error.details).toEqual([{ path: 'body.name', message: 'required' }]);
  });
});

describe('routing', () => {
  it('answers 404 not_found for unknown routes, with or without a key', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/admin/v1/nope'],
      ['POST', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000/nope'],
      ['GET', '/admin/v2/agents'],
    ] as const) {
      expectError(await p.request(method, path), 404, 'not_found');
      expectError(await p.request(method, path, { apiKey: null }), 404, 'not_found');
    }
  });

  it('answers 405 method_not_allowed with an Allow header for a wrong method on a known path', async () => {
    const res = await p.request('PUT', '/admin/v1/agents', { body: { name: 'A' } });
    expectError(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(/,\s*/);
    expect(allow).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(res.body.error.message).toContain('PUT');

    const onRecord = await p.request('POST', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000');
    expectError(onRecord, 405, 'method_not_allowed');
    expect((onRecord.headers.get('allow') ?? '').split(/,\s*/)).toEqual(
      expect.arrayContaining(['GET', 'PATCH', 'DELETE']),
    );

    expectError(await p.request('DELETE', '/openapi.json', { apiKey: null }), 405, 'method_not_allowed');
  });

  it('answers 501 not_implemented in the error shape for a method the server does not know', async () => {
    const res = await p.request('PROPFIND', '/admin/v1/agents');
    expectError(res, 501, 'not_implemented');
  });
});

describe('X-Request-Id', () => {
  const cases: [string, () => Promise<TestResponse>][] = [
    ['a success', () => p.request('GET', '/admin/v1/agents')],
    ['a 201', () => p.request('POST', '/admin/v1/agents', { body: { name: 'R' } })],
    ['a 401', () => p.request('GET', '/admin/v1/agents', { apiKey: null })],
    ['a 400', () => p.request('GET', '/admin/v1/agents?limit=0')],
    ['an unknown route', () => p.request('GET', '/nope')],
    ['a 405', () => p.request('PUT', '/admin/v1/presets')],
    ['a 413', () => p.request('POST', '/admin/v1/agents', { body: { name: 'x'.repeat(jsonLimit * 2) } })],
    ['a 415', () => p.request('POST', '/admin/v1/agents', { rawBody: 'x', headers: { 'Content-Type': 'text/plain' } })],
  ];

  it.each(cases)('is on %s, fresh each time', async (_name, send) => {
    const first = await send();
    const second = await send();
    const id = first.headers.get('x-request-id');
    expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(second.headers.get('x-request-id')).not.toBe(id);
    if (first.status >= 400) expect(first.body.error.request_id).toBe(id);
  });

  it('echoes a sane incoming id, in the header and in error bodies', async () => {
    for (const incoming of ['abc-123', 'trace.4bf92f3577b34da6:00f067aa0ba902b7', 'X'.repeat(128)]) {
      const ok = await p.request('GET', '/admin/v1/agents', { headers: { 'X-Request-Id': incoming } });
      expect(ok.headers.get('x-request-id')).toBe(incoming);
      const bad = await p.request('GET', '/admin/v1/agents/nope', { headers: { 'X-Request-Id': incoming } });
      expect(bad.headers.get('x-request-id')).toBe(incoming);
      expect(bad.body.error.request_id).toBe(incoming);
    }
  });

  it('replaces an insane incoming id', async () => {
    for (const incoming of ['has spaces', 'X'.repeat(129), '<script>alert(1)</script>', 'a/b', '"quoted"']) {
      const res = await p.request('GET', '/admin/v1/agents/nope', { headers: { 'X-Request-Id': incoming } });
      const id = res.headers.get('x-request-id');
      expect(id).not.toBe(incoming);
      expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
      expect(res.body.error.request_id).toBe(id);
    }
  });
});

describe('internal errors', () => {
  it('answers 500 internal_error with a generic message when a stored record is corrupt', async () => {
    const created = await p.request('POST', '/admin/v1/agents', { body: { name: 'Corrupt' } });
    await p.parley.redis.set(p.parley.store.keys.agent(created.body.id), '{"id": "agt_x", oops');
    const res = await p.request('GET', `/admin/v1/agents/${created.body.id}`);
    expectError(res, 500, 'internal_error');
    expect(res.body.error.message).toContain('request id');
    expect(res.body.error.details).toBeUndefined();
    expectNothingLeaked(res);
    await p.parley.redis.del(p.parley.store.keys.agent(created.body.id));
  });
});

describe('while Redis is down', () => {
  let own: TestRedis;
  let q: TestParley;
  let closed = false;
  beforeAll(async () => {
    own = await TestRedis.start();
    q = await startParley(own);
  });
  afterAll(async () => {
    if (!closed) await q?.close();
    await own?.close();
  });

  it('answers 503 store_unavailable on every Admin API call, then serves again once Redis is back', async () => {
    const agent = (await q.request('POST', '/admin/v1/agents', { body: { name: 'Survivor' } })).body;
    const preset = (await q.request('POST', '/admin/v1/presets', { body: { name: 'P' } })).body;
    await own.stopServer();

    const calls: [string, string, unknown?][] = [
      ['GET', '/admin/v1/agents'],
      ['GET', `/admin/v1/agents/${agent.id}`],
      ['POST', '/admin/v1/agents', { name: 'New' }],
      ['PATCH', `/admin/v1/agents/${agent.id}`, { name: 'Renamed' }],
      ['POST', `/admin/v1/agents/${agent.id}/regenerate-token`],
      ['DELETE', `/admin/v1/agents/${agent.id}`],
      ['GET', `/admin/v1/agents/${agent.id}/stats`],
      ['GET', '/admin/v1/presets'],
      ['DELETE', `/admin/v1/presets/${preset.id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await q.request(method, path, { body });
      expectError(res, 503, 'store_unavailable');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expectNothingLeaked(res);
    }
    // Requests Parley answers without Redis are unaffected.
    expectError(await q.request('GET', '/admin/v1/agents', { apiKey: null }), 401, 'unauthorized');
    expectError(await q.request('GET', '/admin/v1/agents/nope'), 400, 'validation_error');
    expect((await q.request('GET', '/openapi.json')).status).toBe(200);

    await own.startServer();
    const back = await pollUntil(
      () => q.request('GET', `/admin/v1/agents/${agent.id}`),
      (res) => res.status === 200,
    );
    expect(back.body).toEqual(agent);

    closed = true;
    await closeWithin(q, 10_000);
  });
});

/** Repeats `send` until `done` holds (bounded: 200 tries, 50 ms apart). */
async function pollUntil(
  send: () => Promise<TestResponse>,
  done: (res: TestResponse) => boolean,
): Promise<TestResponse> {
  let last: TestResponse | undefined;
  for (let i = 0; i < 200; i++) {
    last = await send();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not reached; last answer ${last?.status} ${JSON.stringify(last?.body)}`);
}
