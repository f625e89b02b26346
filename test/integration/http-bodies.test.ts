import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openParley, type Parley } from '../../src/parley.js';
import { eventually } from '../support/eventually.js';
import { testAdminKey } from '../support/parley.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';
import { TestRedis } from '../support/redis-server.js';
import { testModelsDir } from '../support/test-models.js';

/**
 * Every way a request body or the request itself can be unreadable is a 4xx in the error shape
 * (issue 8): corrupt or unsupported compression, absurd Content-Length, and what Node's own HTTP
 * parser rejects (oversized headers, bad chunking). Expected errors are logged without a stack,
 * at info (4xx) or warn (other 5xx); only a real 500 is logged at error with its stack.
 */

const jsonLimit = 4096;
const logLines: Record<string, unknown>[] = [];
let redis: TestRedis;
let parley: Parley;
let url: string;

beforeAll(async () => {
  redis = await TestRedis.start();
  const config = loadConfig({
    NODE_ENV: 'test',
    MODELS_DIR: await testModelsDir(),
    REDIS_URL: redis.url,
    PARLEY_ADMIN_API_KEY: testAdminKey,
    PARLEY_JSON_LIMIT_BYTES: String(jsonLimit),
  });
  const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
  parley = await openParley({ ...config, adminApiKey: testAdminKey, redisUrl: redis.url }, logger);
  url = `http://127.0.0.1:${await parley.listen(0, '127.0.0.1')}`;
});
afterAll(async () => {
  await parley?.close();
  await redis?.close();
});
beforeEach(() => {
  logLines.length = 0;
});

interface Res {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

async function post(path: string, body: Buffer | string, headers: Record<string, string>): Promise<Res> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'X-API-Key': testAdminKey, 'Content-Type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

function expectError(res: Res | RawResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message.length).toBeGreaterThan(0);
  const requestId = res.headers instanceof Headers ? res.headers.get('x-request-id') : res.headers['x-request-id'];
  expect(res.body.error.request_id).toBe(requestId);
  expect(JSON.stringify(res.body)).not.toMatch(/zlib|Z_DATA|incorrect header|node_modules|\bat .+:\d+/);
}

const agentJson = JSON.stringify({ name: 'Compressed' });

describe('compressed bodies', () => {
  it('accepts gzip, deflate and br encoded JSON', async () => {
    for (const [encoding, data] of [
      ['gzip', gzipSync(agentJson)],
      ['deflate', deflateSync(agentJson)],
      ['br', brotliCompressSync(agentJson)],
    ] as const) {
      const res = await post('/admin/v1/agents', data, { 'Content-Encoding': encoding });
      expect(res.status, `${encoding}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.name).toBe('Compressed');
    }
  });

  it('answers 400 invalid_compression for corrupt or truncated gzip, deflate and br data', async () => {
    const cases: [string, Buffer][] = [
      ['gzip', Buffer.from('this is not gzip at all')],
      ['gzip', gzipSync(agentJson).subarray(0, 12)],
      ['deflate', Buffer.from([0x78, 0x9c, 1, 2, 3, 4, 5, 6])],
      ['deflate', Buffer.from('plain text sent as deflate')],
      ['br', Buffer.from('garbage that is not brotli')],
    ];
    for (const [encoding, data] of cases) {
      expectError(await post('/admin/v1/agents', data, { 'Content-Encoding': encoding }), 400, 'invalid_compression');
    }
    // SDK paths answer the same, after the rate limiter (its headers are on the answer).
    const sdk = await post('/sdk/v1/chat', Buffer.from('not gzip'), { 'Content-Encoding': 'gzip' });
    expectError(sdk, 400, 'invalid_compression');
    expect(sdk.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('answers 415 unsupported_encoding with Accept-Encoding for an encoding it cannot decode', async () => {
    for (const encoding of ['compress', 'zstd', 'x-custom']) {
      const res = await post('/admin/v1/agents', agentJson, { 'Content-Encoding': encoding });
      expectError(res, 415, 'unsupported_encoding');
      expect(res.headers.get('accept-encoding')).toBe('gzip, deflate, br');
    }
  });

  it('answers 413 for a body that decompresses beyond the limit (a zip bomb)', async () => {
    const bomb = gzipSync(JSON.stringify({ name: 'B', system_prompt: ' '.repeat(jsonLimit * 50) }));
    expect(bomb.length).toBeLessThan(jsonLimit);
    expectError(await post('/admin/v1/agents', bomb, { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
  });
});

describe('Content-Length', () => {
  const head = (extra: string) =>
    `POST /admin/v1/agents HTTP/1.1\r\nHost: x\r\nX-API-Key: ${testAdminKey}\r\nContent-Type: application/json\r\n${extra}`;

  it('answers an absurd Content-Length with a short body 413 at once and closes the connection', async () => {
    for (const extra of ['', 'Content-Encoding: gzip\r\n']) {
      const res = await rawRequest(url, `${head(extra)}Content-Length: 999999999999\r\n\r\n${agentJson}`, {
        closeWithinMs: 4_000,
      });
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error.details).toEqual({ limit_bytes: jsonLimit });
      expect(res.closedByServer).toBe(true);
    }
  });
});

describe("requests Node's HTTP parser rejects", () => {
  it('answers headers over 16 KB with 431 in the JSON error shape', async () => {
    const res = await rawRequest(
      url,
      `GET /admin/v1/agents HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectError(res, 431, 'headers_too_large');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers bad chunking and a garbled request with 400 in the JSON error shape', async () => {
    const badChunks = `POST /admin/v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`;
    expectError(await rawRequest(url, badChunks), 400, 'bad_request');
    expectError(await rawRequest(url, 'HELLO THERE\r\n\r\n'), 400, 'bad_request');
    const twoLengths = `POST /admin/v1/agents HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`;
    expectError(await rawRequest(url, twoLengths), 400, 'bad_request');
  });
});

describe('log levels', () => {
  const requestLine = (status: number) => logLines.find((l) => l['msg'] === 'request' && l['status'] === status);

  it('logs expected errors without a stack, 4xx at info and other 5xx at warn', async () => {
    await post('/admin/v1/agents', Buffer.from('junk'), { 'Content-Encoding': 'gzip' });
    await fetch(`${url}/admin/v1/agents`, { method: 'PROPFIND', headers: { 'X-API-Key': testAdminKey } });
    await fetch(`${url}/nope`);
    await rawRequest(url, 'HELLO THERE\r\n\r\n');
    expect(requestLine(400)).toMatchObject({ level: 30, code: 'invalid_compression' });
    expect(requestLine(404)).toMatchObject({ level: 30, code: 'not_found' });
    expect(requestLine(501)).toMatchObject({ level: 40, code: 'not_implemented' });
    expect(logLines.find((l) => l['msg'] === 'malformed request rejected')).toMatchObject({ level: 30 });
    expect(logLines.filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    expect(JSON.stringify(logLines)).not.toContain('"stack"');
  });

  it('logs a store outage at warn with its cause and no stack', async () => {
    await redis.stopServer();
    try {
      const res = await fetch(`${url}/admin/v1/agents`, { headers: { 'X-API-Key': testAdminKey } });
      expect(res.status).toBe(503);
    } finally {
      await redis.startServer();
    }
    expect(requestLine(503)).toMatchObject({ level: 40, code: 'store_unavailable', cause: expect.any(String) });
    expect(logLines.filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    expect(JSON.stringify(logLines)).not.toContain('"stack"');
  });

  it('logs a real 500 at error, with its stack', async () => {
    // Parley reconnects by itself after the previous test's restart.
    const created = await eventually(
      () => post('/admin/v1/agents', agentJson, {}),
      (res) => res.status === 201,
      { timeoutMs: 10_000, intervalMs: 100, what: 'Parley serving again' },
    );
    await parley.redis.set(parley.store.keys.agent(created.body.id), '{"broken": ');
    const res = await fetch(`${url}/admin/v1/agents/${created.body.id}`, { headers: { 'X-API-Key': testAdminKey } });
    expect(res.status).toBe(500);
    const failure = logLines.find((l) => l['msg'] === 'request failed');
    expect(failure).toMatchObject({ level: 50, err: { stack: expect.stringContaining('at ') } });
    expect(requestLine(500)).toMatchObject({ level: 50, code: 'internal_error' });
  });
});
