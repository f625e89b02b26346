import { JobStatus, JobType, WorkerStatus } from '@livekit/protocol';
import { AudioFrame } from '@livekit/rtc-node';
import { TokenVerifier } from 'livekit-server-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { FakeRooms } from '../support/fake-livekit/fake-room.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Parley as a LiveKit agent worker against a fake LiveKit server speaking the real protobuf worker
 * protocol: registration, availability, assignment, load reports, refusal past capacity,
 * termination, room-side ends, reconnect after an outage, drain on shutdown.
 */

const agentName = 'parley-test';
let redis: TestRedis;
let fake: FakeLivekit;
let rooms: FakeRooms;
let p: TestParley;

const fastWorker = { statusIntervalMs: 150, backoffMs: 100, maxBackoffMs: 300, assignmentTimeoutMs: 3_000 };

async function start(env: Record<string, string> = {}): Promise<TestParley> {
  return startParley(
    redis,
    {
      ...fake.env,
      PARLEY_LIVEKIT_AGENT_NAME: agentName,
      PARLEY_RATE_LIMIT_BURST: '1000',
      PARLEY_DRAIN_TIMEOUT_MS: '300',
      ...env,
    },
    { livekit: { connect: rooms.connect, worker: fastWorker, heartbeatMs: 200 } },
  );
}

beforeAll(async () => {
  redis = await TestRedis.start();
  fake = await FakeLivekit.start();
  rooms = new FakeRooms(fake.apiKey, fake.apiSecret);
  p = await start({ PARLEY_MAX_SESSIONS: '2' });
  await eventually(
    () => fake.registered(agentName).length,
    (n) => n === 1,
    { what: 'registration' },
  );
});
afterAll(async () => {
  await p?.close();
  await fake?.stop();
  await redis?.close();
});
beforeEach(() => {
  fake.refused.length = 0;
});

async function agent(on: TestParley = p): Promise<{ id: string; agent_token: string }> {
  const res = await on.request('POST', '/admin/v1/agents', { body: { name: 'LiveKit agent', greeting: null } });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

/** An SDK session; returns it and the dispatch its token's room configuration asks LiveKit for. */
async function sdkSession(token: string) {
  const res = await p.request('POST', '/sdk/v1/session', {
    body: { agent_token: token, user_id: 'caller-1' },
    apiKey: null,
  });
  expect(res.status).toBe(201);
  const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(res.body.connection_token as string);
  const dispatch = claims.roomConfig!.agents[0]!;
  return { sessionId: res.body.session_id as string, room: claims.video!.room!, dispatch, claims };
}

async function session(id: string) {
  return (await p.request('GET', `/admin/v1/sessions/${id}`)).body as {
    status: string;
    end_reason: string | null;
    transport: string;
    room: string;
  };
}

const silence = () => new AudioFrame(new Int16Array(320), 16_000, 1, 320);

describe('registration and load', () => {
  it('registers under the agent name over an authenticated socket and reports load every interval', async () => {
    const [worker] = fake.registered(agentName);
    expect(worker!.registration).toMatchObject({ agentName, type: JobType.JT_ROOM });
    expect(worker!.registration!.allowedPermissions).toMatchObject({
      canPublish: true,
      canSubscribe: true,
      agent: true,
    });
    const before = worker!.reports.length;
    await eventually(
      () => worker!.reports.length,
      (n) => n >= before + 2,
      { what: 'status reports' },
    );
    expect(worker!.reports.at(-1)).toMatchObject({ status: WorkerStatus.WS_AVAILABLE, load: 0, jobCount: 0 });
    expect(fake.refused).toEqual([]);
  });

  it('a worker signing with the wrong secret is refused by LiveKit and says why', async () => {
    const wrong = await start({
      LIVEKIT_API_SECRET: 'not-the-secret-not-the-secret-000',
      PARLEY_LIVEKIT_AGENT_NAME: 'parley-wrong',
    });
    try {
      const status = await eventually(
        async () =>
          (await wrong.request('GET', '/admin/v1/livekit/worker-status')).body.instances as {
            livekit: { agent_name: string; registered: boolean; reason: string | null };
          }[],
        (list) => list.some((i) => i.livekit.agent_name === 'parley-wrong' && i.livekit.reason !== null),
        { what: 'refusal reported' },
      );
      const mine = status.find((i) => i.livekit.agent_name === 'parley-wrong')!;
      expect(mine.livekit.registered).toBe(false);
      expect(mine.livekit.reason).toMatch(/401/);
      expect(fake.refused.some((r) => r.startsWith('bad token'))).toBe(true);
      expect(fake.registered('parley-wrong')).toEqual([]);
    } finally {
      await wrong.close();
    }
  });

  it('worker-status shows this instance registered', async () => {
    const res = await p.request('GET', '/admin/v1/livekit/worker-status');
    expect(res.status).toBe(200);
    const [instance] = res.body.instances;
    expect(instance.livekit).toMatchObject({
      configured: true,
      registered: true,
      state: 'registered',
      agent_name: agentName,
    });
    expect(instance.livekit.worker_id).toBe(fake.registered(agentName)[0]!.id);
    expect(instance.capacity).toBe(2);
  });
});

describe('jobs', () => {
  it('the SDK token dispatches this agent; the job joins the room, runs the session and ends it when the user leaves', async () => {
    const a = await agent();
    const s = await sdkSession(a.agent_token);
    expect(s.dispatch.agentName).toBe(agentName);
    expect(JSON.parse(s.dispatch.metadata)).toEqual({ session_id: s.sessionId, agent_id: a.id });
    expect(s.claims.sub).toBe('caller-1');
    expect(s.room).toBe(`parley-${s.sessionId}`);
    expect(s.claims.video).toMatchObject({ roomJoin: true, canPublish: true, canSubscribe: true });
    expect(s.claims.video?.roomAdmin).toBeUndefined();
    const { exp, nbf } = s.claims as unknown as { exp: number; nbf: number };
    expect(exp - nbf).toBe(600); // PARLEY_LIVEKIT_TOKEN_TTL_S

    const { job, worker } = await fake.dispatch(s.room, s.dispatch.agentName, s.dispatch.metadata);
    expect(worker).not.toBeNull();
    const room = await rooms.joined(s.room);
    expect(room.identity).toBe(`agent-${job.id}`);
    expect(room.claims.attributes?.['lk.agent.name']).toBe(agentName);
    const mic = room.userJoins('caller-1');
    mic.push(silence());
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (s) => s.includes(JobStatus.JS_RUNNING),
      { what: 'job running' },
    );
    await eventually(
      () => room.states,
      (s) => s.includes('listening'),
      { what: 'agent state' },
    );
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.load === 0.5 && r.jobCount === 1,
      { what: 'load 0.5' },
    );

    room.userLeaves();
    await eventually(
      () => session(s.sessionId),
      (x) => x.status === 'ended',
      { what: 'session end' },
    );
    expect((await session(s.sessionId)).end_reason).toBe('participant_left');
    await eventually(() => room.disconnected, Boolean, { what: 'agent left the room' });
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (s) => s.at(-1) === JobStatus.JS_SUCCESS,
      { what: 'job success' },
    );
  });

  it('refuses a job whose metadata names no agent, an ended session or an unknown agent', async () => {
    const a = await agent();
    expect((await fake.dispatch('room-x', agentName, 'not json')).worker).toBeNull();
    expect(
      (await fake.dispatch('room-x', agentName, '{"agent_id":"agt_01jd3n6v8m0000000000000000"}')).worker,
    ).toBeNull();
    const s = await sdkSession(a.agent_token);
    await p.parley.store.sessions.end(s.sessionId, 'client_hangup');
    expect((await fake.dispatch(s.room, agentName, s.dispatch.metadata)).worker).toBeNull();
  });

  it('a dispatched job without a session creates one with the participant as user', async () => {
    const a = await agent();
    const { job } = await fake.dispatch('sip-room-1', agentName, JSON.stringify({ agent_id: a.id }));
    const room = await rooms.joined('sip-room-1');
    room.userJoins('sip_+15550100');
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (s) => s.includes(JobStatus.JS_RUNNING),
      { what: 'job running' },
    );
    const list = await p.request('GET', `/admin/v1/sessions?agent_id=${a.id}`);
    expect(list.body.data[0]).toMatchObject({
      transport: 'livekit',
      room: 'sip-room-1',
      user_id: 'sip_+15550100',
      status: 'active',
    });
    fake.terminate(job.id);
    await eventually(
      () => session(list.body.data[0].id),
      (x) => x.end_reason === 'job_terminated',
      { what: 'terminated' },
    );
  });

  it('a room that cannot be joined fails the job: error record, session ended `error`, JS_FAILED', async () => {
    const a = await agent();
    const s = await sdkSession(a.agent_token);
    rooms.failNextJoin = 'signal connection refused';
    const { job } = await fake.dispatch(s.room, s.dispatch.agentName, s.dispatch.metadata);
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (x) => x.at(-1) === JobStatus.JS_FAILED,
      { what: 'failed' },
    );
    expect(fake.jobs.get(job.id)!.errors[0]).toMatch(/signal connection refused/);
    expect(await session(s.sessionId)).toMatchObject({ status: 'ended', end_reason: 'error' });
    const errors = await p.request('GET', `/admin/v1/errors?agent_id=${a.id}`);
    expect(errors.body.data).toEqual([
      expect.objectContaining({ type: 'livekit_job_failed', session_id: s.sessionId }),
    ]);
  });

  it('a job the supervisor refuses leaves a session connected elsewhere alone, and does not re-end one that ended', async () => {
    const a = await agent();
    // Another instance holds the session's media connection (its lease): the job must not end it.
    const elsewhere = await sdkSession(a.agent_token);
    expect(await p.parley.store.leases.claim(elsewhere.sessionId, 'another-instance', 60_000)).toBe('ok');
    const first = await fake.dispatch(elsewhere.room, agentName, elsewhere.dispatch.metadata);
    (await rooms.joined(elsewhere.room)).userJoins('caller-1');
    await eventually(
      () => fake.jobs.get(first.job.id)!.statuses,
      (x) => x.at(-1) === JobStatus.JS_FAILED,
      { what: 'refused job failed' },
    );
    expect(fake.jobs.get(first.job.id)!.errors.at(-1)).toMatch(/already has a media connection/);
    expect(await session(elsewhere.sessionId)).toMatchObject({ status: 'active', end_reason: null });
    expect((await rooms.joined(elsewhere.room)).disconnected).toBe(true);

    // The session ended between the offer and the user's arrival: it keeps its own end reason.
    const ended = await sdkSession(a.agent_token);
    const second = await fake.dispatch(ended.room, agentName, ended.dispatch.metadata);
    const room = await rooms.joined(ended.room);
    await p.parley.store.sessions.end(ended.sessionId, 'client_hangup');
    room.userJoins('caller-1');
    await eventually(
      () => fake.jobs.get(second.job.id)!.statuses,
      (x) => x.at(-1) === JobStatus.JS_FAILED,
      { what: 'refused job failed' },
    );
    expect(fake.jobs.get(second.job.id)!.errors.at(-1)).toMatch(/has ended/);
    expect(await session(ended.sessionId)).toMatchObject({ status: 'ended', end_reason: 'client_hangup' });
    expect((await p.request('GET', `/admin/v1/errors?agent_id=${a.id}`)).body.data).toEqual([]);
  });

  it('an accepted job that is never assigned gives its reservation back', async () => {
    const a = await agent();
    const [worker] = fake.registered(agentName);
    const { job } = await fake.dispatch('never-assigned', 'nobody', JSON.stringify({ agent_id: a.id }));
    expect((await worker!.offer(job)).available).toBe(true); // no assignment follows
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.load === 0.5,
      { what: 'reserved' },
    );
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.load === 0,
      { what: 'released', timeoutMs: 10_000 },
    );
  });

  it('a session that ends on its own (idle timeout) leaves the room and reports JS_SUCCESS', async () => {
    const created = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'Idle', greeting: null, idle_timeout_ms: 5_000 },
    });
    const { job } = await fake.dispatch('idle-1', agentName, JSON.stringify({ agent_id: created.body.id }));
    const room = await rooms.joined('idle-1');
    room.userJoins('quiet-user');
    await eventually(() => room.disconnected, Boolean, { what: 'left after idle timeout', timeoutMs: 15_000 });
    const list = await p.request('GET', `/admin/v1/sessions?agent_id=${created.body.id}`);
    expect(list.body.data[0]).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (x) => x.at(-1) === JobStatus.JS_SUCCESS,
      { what: 'success' },
    );
  });

  it('refuses jobs past PARLEY_MAX_SESSIONS and reports WS_FULL', async () => {
    const a = await agent();
    const meta = JSON.stringify({ agent_id: a.id });
    const first = await fake.dispatch('cap-1', agentName, meta);
    const second = await fake.dispatch('cap-2', agentName, meta);
    (await rooms.joined('cap-1')).userJoins('u1');
    (await rooms.joined('cap-2')).userJoins('u2');
    expect(first.worker).not.toBeNull();
    expect(second.worker).not.toBeNull();
    const [worker] = fake.registered(agentName);
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.status === WorkerStatus.WS_FULL && r.load === 1,
      { what: 'WS_FULL' },
    );
    // LiveKit sends no offers to a full worker; a direct offer is refused all the same.
    const third = await worker!.offer((await fake.dispatch('cap-3', 'nobody', meta)).job);
    expect(third.available).toBe(false);
    fake.terminate(first.job.id);
    fake.terminate(second.job.id);
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.status === WorkerStatus.WS_AVAILABLE && r.load === 0,
      { what: 'available again' },
    );
  });

  it('a closed room ends the session `room_closed`; a lost connection `livekit_disconnected` with an error record', async () => {
    const a = await agent();
    const meta = JSON.stringify({ agent_id: a.id });
    const closed = await fake.dispatch('gone-1', agentName, meta);
    const lost = await fake.dispatch('gone-2', agentName, meta);
    const r1 = await rooms.joined('gone-1');
    const r2 = await rooms.joined('gone-2');
    r1.userJoins('u1');
    r2.userJoins('u2');
    for (const j of [closed, lost])
      await eventually(
        () => fake.jobs.get(j.job.id)!.statuses,
        (s) => s.includes(JobStatus.JS_RUNNING),
        { what: 'running' },
      );
    r1.gone('room_closed');
    r2.gone('connection_lost');
    const sessions = async () =>
      (await p.request('GET', `/admin/v1/sessions?agent_id=${a.id}`)).body.data as {
        room: string;
        end_reason: string | null;
        id: string;
      }[];
    const ended = await eventually(sessions, (list) => list.every((x) => x.end_reason !== null), {
      what: 'both ended',
    });
    expect(Object.fromEntries(ended.map((x) => [x.room, x.end_reason]))).toEqual({
      'gone-1': 'room_closed',
      'gone-2': 'livekit_disconnected',
    });
    const errors = await p.request('GET', `/admin/v1/errors?agent_id=${a.id}`);
    expect(errors.body.data.map((e: { type: string }) => e.type)).toEqual(['livekit_disconnected']);
    await eventually(
      () => fake.jobs.get(lost.job.id)!.statuses,
      (s) => s.at(-1) === JobStatus.JS_FAILED,
      { what: 'job failed' },
    );
  });
});

describe('outage and shutdown', () => {
  it('reconnects with backoff after LiveKit restarts, and worker-status says so meanwhile', async () => {
    const oldId = fake.registered(agentName)[0]!.id;
    await fake.stop();
    const down = await eventually(
      async () => (await p.request('GET', '/admin/v1/livekit/worker-status')).body.instances[0].livekit,
      (l) => l.state === 'reconnecting' && l.reconnect_attempts >= 2,
      { what: 'reconnecting' },
    );
    expect(down.registered).toBe(false);
    expect(down.reason).toEqual(expect.any(String));
    await fake.restart();
    await eventually(
      () => fake.registered(agentName).length,
      (n) => n === 1,
      { what: 're-registration' },
    );
    expect(fake.registered(agentName)[0]!.id).not.toBe(oldId);
    const up = await eventually(
      async () => (await p.request('GET', '/admin/v1/livekit/worker-status')).body.instances[0].livekit,
      (l) => l.registered,
      { what: 'registered again' },
    );
    expect(up.reconnect_attempts).toBe(0);
  });

  it('shutdown reports WS_FULL, lets sessions run up to the drain timeout, then ends them `shutdown`', async () => {
    const second = await start({ PARLEY_LIVEKIT_AGENT_NAME: 'parley-drain' });
    await eventually(
      () => fake.registered('parley-drain').length,
      (n) => n === 1,
      { what: 'second worker' },
    );
    const [worker] = fake.registered('parley-drain');
    const a = await agent(second);
    const { job } = await fake.dispatch('drain-1', 'parley-drain', JSON.stringify({ agent_id: a.id }));
    (await rooms.joined('drain-1')).userJoins('u1');
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (s) => s.includes(JobStatus.JS_RUNNING),
      { what: 'running' },
    );
    const closing = second.close();
    await eventually(
      () => worker!.reports.at(-1)!,
      (r) => r.status === WorkerStatus.WS_FULL,
      { what: 'WS_FULL on drain' },
    );
    await closing;
    const list = await p.request('GET', `/admin/v1/sessions?agent_id=${a.id}`);
    expect(list.body.data[0]).toMatchObject({ status: 'ended', end_reason: 'shutdown' });
    expect(fake.jobs.get(job.id)!.statuses.at(-1)).toBe(JobStatus.JS_SUCCESS);
  });
});
