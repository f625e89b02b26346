import { JobStatus } from '@livekit/protocol';
import { AudioFrame } from '@livekit/rtc-node';
import { TokenVerifier } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { FakeRooms } from '../support/fake-livekit/fake-room.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import { killNode, startNodes, stopNodes, type ParleyNode } from '../support/parley-nodes.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Issue 23 item 3, LiveKit: a node killed with SIGKILL while it holds LiveKit jobs. The fake
 * LiveKit offers the jobs again with `resuming` (as LiveKit does when a worker goes away) and the
 * surviving Parley takes them: an SDK session nobody had connected yet is continued; one whose
 * media the dead node had claimed is ended `owner_lost` by the survivor's reaper and the job starts
 * a new session in the same room.
 *
 * The doomed node is a real Parley process (src/main.ts); it joins rooms with rtc-node, which needs
 * a real LiveKit, so the fake holds its room joins: its jobs are taken and "joining" when it dies.
 * The survivor runs in-process with FakeRooms, so the test can be the user in the rooms.
 */

const agentName = 'parley';
const leaseTtlMs = 2_000;
const env = {
  PARLEY_LIVEKIT_AGENT_NAME: agentName,
  PARLEY_SESSION_LEASE_TTL_MS: String(leaseTtlMs),
  PARLEY_SESSION_SWEEP_INTERVAL_MS: '300',
  PARLEY_DRAIN_TIMEOUT_MS: '200',
};

let redis: TestRedis;
let fake: FakeLivekit;
let rooms: FakeRooms;
let doomed: ParleyNode[] = [];
let survivor: TestParley | undefined;

beforeAll(async () => {
  redis = await TestRedis.start();
  fake = await FakeLivekit.start();
  fake.holdRoomJoins = true;
  rooms = new FakeRooms(fake.apiKey, fake.apiSecret);
  doomed = await startNodes(redis, 1, { ...fake.env, ...env });
  await eventually(
    () => fake.registered(agentName).length,
    (n) => n === 1,
    { what: 'the doomed node registered', timeoutMs: 20_000 },
  );
}, 90_000);

afterAll(async () => {
  await survivor?.close();
  await stopNodes(doomed);
  await fake?.stop();
  await redis?.close();
}, 60_000);

async function sdkSession(on: ParleyNode, token: string) {
  const res = await on.request('POST', '/sdk/v1/session', {
    body: { agent_token: token, user_id: 'caller' },
    apiKey: null,
  });
  expect(res.status).toBe(201);
  const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(res.body.connection_token as string);
  return {
    sessionId: res.body.session_id as string,
    room: claims.video!.room!,
    metadata: claims.roomConfig!.agents[0]!.metadata,
  };
}

const silence = () => new AudioFrame(new Int16Array(320), 16_000, 1, 320);

describe('a node lost with its LiveKit jobs', () => {
  it('LiveKit offers its jobs again (resuming) and the surviving worker takes them', async () => {
    const node = doomed[0]!;
    const agent = await node.request('POST', '/admin/v1/agents', {
      body: { name: 'LiveKit node loss', greeting: null },
    });
    expect(agent.status).toBe(201);
    const fresh = await sdkSession(node, agent.body.agent_token);
    const claimed = await sdkSession(node, agent.body.agent_token);
    // Only the doomed node is registered: it takes both jobs, and joins their rooms (held).
    const [doomedWorker] = fake.registered(agentName);
    const jobs = [];
    for (const s of [fresh, claimed]) {
      const { job, worker } = await fake.dispatch(s.room, agentName, s.metadata);
      expect(worker?.id).toBe(doomedWorker!.id);
      jobs.push(job);
    }
    await eventually(
      () => fake.heldJoins.length,
      (n) => n === 2,
      { what: 'both rooms joining' },
    );

    survivor = await startParley(
      redis,
      { ...fake.env, ...env },
      {
        livekit: { connect: rooms.connect, worker: { statusIntervalMs: 200 }, heartbeatMs: 200 },
      },
    );
    await eventually(
      () => fake.registered(agentName).length,
      (n) => n === 2,
      { what: 'the survivor registered' },
    );
    // The dead node had connected the second session's media (claimed its lease) before it died:
    // stood in for here, since its rtc-node join cannot complete against the fake.
    const nodes = await survivor.request('GET', '/admin/v1/nodes');
    const doomedId = (nodes.body.data as { id: string; pid: number }[]).find((n) => n.pid === node.main.child.pid)!.id;
    expect(await survivor.parley.store.leases.claim(claimed.sessionId, doomedId, leaseTtlMs)).toBe('ok');

    await killNode(node);
    const killedAt = Date.now();

    // Offered again with `resuming`, taken by the survivor.
    for (const job of jobs) {
      await eventually(
        () => fake.jobs.get(job.id)!,
        (j) => j.resumedBy !== undefined,
        { what: 're-offer' },
      );
      const record = fake.jobs.get(job.id)!;
      expect(record.offers.at(-1)).toMatchObject({ resuming: true });
      expect(record.resumedBy).toBe(fake.registered(agentName)[0]!.id);
    }
    for (const s of [fresh, claimed]) (await rooms.joined(s.room)).userJoins('caller').push(silence());
    for (const job of jobs)
      await eventually(
        () => fake.jobs.get(job.id)!.statuses,
        (st) => st.includes(JobStatus.JS_RUNNING),
        { what: 'running again' },
      );

    // Nobody had connected the first session: the survivor continues it.
    const first = await survivor.request('GET', `/admin/v1/sessions/${fresh.sessionId}`);
    expect(first.body.status).toBe('active');
    const listed = await survivor.request('GET', '/admin/v1/livekit/rooms');
    const byRoom = new Map(
      (listed.body.data as { name: string; session: { id: string } | null; job: { instance_id: string } | null }[]).map(
        (r) => [r.name, r],
      ),
    );
    expect(byRoom.get(fresh.room)?.session?.id).toBe(fresh.sessionId);
    expect(byRoom.get(fresh.room)?.job?.instance_id).toBe(survivor.parley.services.supervisor.holder);

    // The claimed one: ended owner_lost by the survivor's reaper; the job runs a new session in its room.
    const old = await eventually(
      () => survivor!.request('GET', `/admin/v1/sessions/${claimed.sessionId}`),
      (r) => r.body.status === 'ended',
      { what: 'owner_lost', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(old.body.end_reason).toBe('owner_lost');
    console.log(
      `LiveKit node lost → claimed session ended: ${Date.parse(old.body.ended_at as string) - killedAt} ms (lease ${leaseTtlMs} ms, fresh reaper settle 5 s)`,
    );
    const replacement = byRoom.get(claimed.room)?.session;
    expect(replacement).toBeTruthy();
    expect(replacement!.id).not.toBe(claimed.sessionId);
    const detail = await survivor.request('GET', `/admin/v1/sessions/${replacement!.id}`);
    expect(detail.body).toMatchObject({ status: 'active', transport: 'livekit', room: claimed.room });
    expect(detail.body.metadata).toMatchObject({ livekit_resumes_session_id: claimed.sessionId });
  }, 80_000);
});
