import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestRedis } from '../support/redis-server.js';
import { startParley, type TestParley } from '../support/parley.js';

let redis: TestRedis;
let p: TestParley;
beforeAll(async () => {
  redis = await TestRedis.start();
  p = await startParley(redis);
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
});

it('creates and lists agents', async () => {
  const created = await p.request('POST', '/admin/v1/agents', { body: { name: 'A', webhook_api_key: 'k' } });
  expect(created.status).toBe(201);
  expect(created.body.has_webhook_api_key).toBe(true);
  expect(created.body.webhook_api_key).toBeUndefined();
  for (let i = 0; i < 5; i++) await p.request('POST', '/admin/v1/agents', { body: { name: `B${i}` } });
  const page1 = await p.request('GET', '/admin/v1/agents?limit=4');
  expect(page1.body.data.map((a: { name: string }) => a.name)).toEqual(['B4', 'B3', 'B2', 'B1']);
  const page2 = await p.request('GET', `/admin/v1/agents?limit=4&cursor=${page1.body.next_cursor}`);
  expect(page2.body.data.map((a: { name: string }) => a.name)).toEqual(['B0', 'A']);
  expect(page2.body.next_cursor).toBeNull();
  const bad = await p.request('POST', '/admin/v1/agents', { body: { name: '', mode: 'x', vad_threshold: 3 } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.details).toHaveLength(3);
  const unauth = await p.request('GET', '/admin/v1/agents', { apiKey: 'nope' });
  expect(unauth.status).toBe(401);
  const nf = await p.request('GET', '/admin/v1/agents/agt_01jd3n6v8m0000000000000000');
  expect(nf.status).toBe(404);
  const spec = await p.request('GET', '/openapi.json', { apiKey: null });
  expect(spec.body.openapi).toBe('3.1.0');
});
