import { JobStatus } from '@livekit/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { FakeRooms } from '../support/fake-livekit/fake-room.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * /admin/v1/livekit/{rooms,worker-status,dispatch} across two Parley instances on one Redis,
 * against a fake LiveKit speaking Twirp JSON (grants checked) and the worker protocol; and
 * without LiveKit configured.
 */

let redis: TestRedis;
let fake: FakeLivekit;
let rooms: FakeRooms;
let a: TestParley;
let b: TestParley;
let bare: TestParley;

const overrides = () => ({
  livekit: {
    connect: rooms.connect,
    worker: { statusIntervalMs: 200, backoffMs: 100, maxBackoffMs: 300 },
    heartbeatMs: 200,
  },
});

beforeAll(async () => {
  redis = await TestRedis.start();
  fake = await FakeLivekit.start();
  rooms = new FakeRooms(fake.apiKey, fake.apiSecret);
  const env = { ...fake.env, PARLEY_DRAIN_TIMEOUT_MS: '200', PARLEY_RATE_LIMIT_BURST: '1000' };
  a = await startParley(redis, { ...env, PARLEY_MAX_SESSIONS: '5' }, overrides());
  b = await startParley(redis, { ...env, PARLEY_MAX_SESSIONS: '7' }, overrides());
  await eventually(
    () => fake.registered('parley').length,
    (n) => n === 2,
    { what: 'two workers' },
  );
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), bare?.close()]);
  await fake?.stop();
  await redis?.close();
});

async function agent(): Promise<{ id: string; agent_token: string }> {
  const res = await a.request('POST', '/admin/v1/agents', { body: { name: 'Dispatch me', greeting: null } });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

describe('worker-status', () => {
  it('lists every instance from its heartbeat, whichever instance answers', async () => {
    for (const p of [a, b]) {
      const res = await eventually(
        () => p.request('GET', '/admin/v1/livekit/worker-status'),
        (r) => r.body.totals?.registered === 2,
        { what: 'both registered' },
      );
      expect(res.status).toBe(200);
      expect(res.body.livekit).toMatchObject({ configured: true, agent_name: 'parley', url: fake.url });
      expect(res.body.totals).toMatchObject({ instances: 2, capacity: 12 });
      const ids = res.body.instances.map((i: { livekit: { worker_id: string } }) => i.livekit.worker_id).sort();
      expect(ids).toEqual(
        fake
          .registered('parley')
          .map((w) => w.id)
          .sort(),
      );
      for (const i of res.body.instances) {
        expect(i).toMatchObject({ draining: false, load: 0, sessions: { livekit: 0, websocket: 0, total: 0 } });
        expect(Date.now() - Date.parse(i.last_heartbeat_at)).toBeLessThan(10_000);
      }
    }
  });

  it('answers without LiveKit, and says LiveKit is not configured', async () => {
    bare = await startParley(redis, {}, { livekit: { heartbeatMs: 200 } });
    const res = await bare.request('GET', '/admin/v1/livekit/worker-status');
    expect(res.status).toBe(200);
    expect(res.body.livekit.configured).toBe(false);
    expect(res.body.livekit.message).toMatch(/not configured/);
    const mine = res.body.instances.find((i: { livekit: { state: string } }) => i.livekit.state === 'not_configured');
    expect(mine.livekit).toMatchObject({ registered: false, worker_id: null });
    expect(mine.livekit.reason).toMatch(/LIVEKIT_URL/);
  });
});

describe('without LiveKit', () => {
  it('rooms and dispatch are 503 livekit_unavailable', async () => {
    const rooms = await bare.request('GET', '/admin/v1/livekit/rooms');
    expect(rooms.status).toBe(503);
    expect(rooms.body.error.code).toBe('livekit_unavailable');
    const ag = await agent();
    const dispatch = await bare.request('POST', '/admin/v1/livekit/dispatch', {
      body: { agent_id: ag.id, room: 'r1' },
    });
    expect(dispatch.status).toBe(503);
    expect(dispatch.body.error.code).toBe('livekit_unavailable');
  });
});

describe('dispatch and rooms', () => {
  it('dispatches the agent through the AgentDispatch API; a worker runs it and rooms shows the session', async () => {
    const ag = await agent();
    const res = await a.request('POST', '/admin/v1/livekit/dispatch', {
      body: { agent_id: ag.id, room: 'support-1', metadata: { ticket: 7 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      room: 'support-1',
      agent_name: 'parley',
      agent_id: ag.id,
      metadata: { ticket: 7, agent_id: ag.id },
    });
    expect(res.body.dispatch_id).toMatch(/^AD_/);
    const room = await rooms.joined('support-1');
    room.userJoins('visitor-9');
    const jobId = [...fake.jobs.entries()].find(([, j]) => j.room === 'support-1')![0];
    await eventually(
      () => fake.jobs.get(jobId)!.statuses,
      (s) => s.includes(JobStatus.JS_RUNNING),
      { what: 'running' },
    );

    const list = await b.request('GET', '/admin/v1/livekit/rooms');
    expect(list.status).toBe(200);
    const entry = list.body.data.find((r: { name: string }) => r.name === 'support-1');
    expect(entry.session).toMatchObject({ agent_id: ag.id, status: 'active', user_id: 'visitor-9', turns: 0 });
    expect(entry.job).toMatchObject({ job_id: jobId, worker_id: fake.jobs.get(jobId)!.workerId });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);

    const status = await eventually(
      () => a.request('GET', '/admin/v1/livekit/worker-status'),
      (r) => r.body.totals.sessions === 1,
      { what: 'session counted' },
    );
    const running = status.body.instances.find((i: { sessions: { livekit: number } }) => i.sessions.livekit === 1);
    expect(running.livekit.jobs).toBe(1);
    room.userLeaves();
    await eventually(
      () => fake.jobs.get(jobId)!.statuses,
      (s) => s.at(-1) === JobStatus.JS_SUCCESS,
      { what: 'done' },
    );
  });

  it('an SDK session’s room is joined to its session by name before any job runs', async () => {
    const ag = await agent();
    const s = await a.request('POST', '/sdk/v1/session', { body: { agent_token: ag.agent_token }, apiKey: null });
    await fake.dispatch(`parley-${s.body.session_id}`, 'no-such-agent', '{}'); // LiveKit creates the room
    const list = await a.request('GET', '/admin/v1/livekit/rooms');
    const entry = list.body.data.find((r: { name: string }) => r.name === `parley-${s.body.session_id}`);
    expect(entry.session).toMatchObject({ id: s.body.session_id, agent_id: ag.id, status: 'active' });
    expect(entry.job).toBeNull();
  });

  it('404 for an unknown agent, 400 for a bad room name, without calling LiveKit', async () => {
    const before = fake.jobs.size;
    const unknown = await a.request('POST', '/admin/v1/livekit/dispatch', {
      body: { agent_id: 'agt_01jd3n6v8m0000000000000000', room: 'r1' },
    });
    expect(unknown.status).toBe(404);
    const ag = await agent();
    const bad = await a.request('POST', '/admin/v1/livekit/dispatch', {
      body: { agent_id: ag.id, room: 'has space/x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: 'body.room', message: expect.any(String) }]);
    expect(fake.jobs.size).toBe(before);
  });

  it('is in /openapi.json', async () => {
    const doc = await a.request('GET', '/openapi.json', { apiKey: null });
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/admin/v1/livekit/rooms',
        '/admin/v1/livekit/worker-status',
        '/admin/v1/livekit/dispatch',
      ]),
    );
  });

  it('502 livekit_unreachable when LiveKit is down', async () => {
    const ag = await agent();
    await fake.stop();
    try {
      const rooms = await a.request('GET', '/admin/v1/livekit/rooms');
      expect(rooms.status).toBe(502);
      expect(rooms.body.error.code).toBe('livekit_unreachable');
      const dispatch = await a.request('POST', '/admin/v1/livekit/dispatch', { body: { agent_id: ag.id, room: 'r2' } });
      expect(dispatch.status).toBe(502);
      expect(dispatch.body.error.code).toBe('livekit_unreachable');
    } finally {
      await fake.restart();
    }
  });
});
