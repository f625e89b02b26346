import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeWithin, startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let p: TestParley | undefined;
let closed = false;

beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  if (!closed) await p?.close();
  await redis?.close();
});

interface Fixture {
  presets: Record<string, unknown>[];
  agents: Record<string, unknown>[];
}

/** Two presets, three agents (one on each preset, one with a webhook key), read back as the API shows them. */
async function createFixture(parley: TestParley): Promise<Fixture> {
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await parley.request('POST', path, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Record<string, unknown> & { id: string };
  };
  const local = await post('/admin/v1/presets', { name: 'Local' });
  const cloud = await post('/admin/v1/presets', { name: 'Cloud', llm: { provider: 'openai', model: 'gpt-4o' } });
  await post('/admin/v1/agents', { name: 'Front desk', preset_id: local.id, greeting: 'Hello' });
  await post('/admin/v1/agents', {
    name: 'Support',
    preset_id: cloud.id,
    mode: 'passthrough',
    webhook_url: 'https://hooks.example.com/x',
    webhook_api_key: 'k-1',
  });
  await post('/admin/v1/agents', { name: 'Sales', metadata: { region: 'eu' } });
  return snapshot(parley);
}

async function snapshot(parley: TestParley): Promise<Fixture> {
  const agents = await parley.request('GET', '/admin/v1/agents?limit=100');
  const presets = await parley.request('GET', '/admin/v1/presets?limit=100');
  expect(agents.status).toBe(200);
  expect(presets.status).toBe(200);
  return { agents: agents.body.data, presets: presets.body.data };
}

/** Everything the fixture holds is readable, one by one and by token. */
async function expectFixture(parley: TestParley, fixture: Fixture): Promise<void> {
  expect(await snapshot(parley)).toEqual(fixture);
  for (const agent of fixture.agents) {
    expect((await parley.request('GET', `/admin/v1/agents/${String(agent['id'])}`)).body).toEqual(agent);
    const byToken = await parley.parley.store.agents.findByToken(String(agent['agent_token']));
    expect(byToken?.id).toBe(agent['id']);
  }
  for (const preset of fixture.presets) {
    expect((await parley.request('GET', `/admin/v1/presets/${String(preset['id'])}`)).body).toEqual(preset);
  }
}

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

it('keeps agents and presets across a Parley restart and a redis-server restart', async () => {
  const first = await startParley(redis);
  const fixture = await createFixture(first);
  expect(fixture.agents).toHaveLength(3);
  expect(fixture.presets.map((x) => x['agent_count'])).toEqual([1, 1]);
  await first.close();

  // A new Parley on the same redis-server sees everything.
  p = await startParley(redis);
  await expectFixture(p, fixture);

  // The redis-server process itself restarts (its append-only file brings the data back);
  // the same Parley reconnects on its own and serves the records again.
  await redis.stopServer();
  expect((await p.request('GET', '/admin/v1/agents')).status).toBe(503);
  await redis.startServer();
  await pollUntil(
    () => p!.request('GET', '/admin/v1/agents?limit=100'),
    (res) => res.status === 200,
  );
  await expectFixture(p, fixture);

  // Writes work again too, including the Lua-backed ones (scripts are reloaded after the restart).
  const agent = fixture.agents[0]!;
  const regenerated = await p.request('POST', `/admin/v1/agents/${String(agent['id'])}/regenerate-token`);
  expect(regenerated.status).toBe(200);
  expect(await p.parley.store.agents.findByToken(String(agent['agent_token']))).toBeNull();
  const created = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'After restart', preset_id: fixture.presets[0]!['id'] },
  });
  expect(created.status).toBe(201);
  const inUse = await p.request('DELETE', `/admin/v1/presets/${String(fixture.presets[0]!['id'])}`);
  expect(inUse.status).toBe(409);
  expect(inUse.body.error.details.agent_ids).toHaveLength(2);

  closed = true;
  await closeWithin(p, 10_000);
});
