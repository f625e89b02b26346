import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredAgent } from '../../src/schemas/agent.js';
import type { Session, SessionEndReason } from '../../src/schemas/session.js';
import type { MediaTransport } from '../../src/sessions/transport/media-transport.js';
import {
  SessionSupervisor,
  type LiveSession,
  type StartSession,
  type SupervisorOptions,
} from '../../src/sessions/supervisor.js';
import { connectRedis, type Redis } from '../../src/store/redis.js';
import { Store } from '../../src/store/store.js';
import { eventually } from '../support/eventually.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The supervisor against a real redis-server (its leases are Lua scripts), with stand-in sessions:
 * what is under test is how sessions are reserved, claimed, isolated and drained, not the voice pipeline.
 */

const logger = pino({ level: 'silent' });
const transport = {} as MediaTransport; // the stand-in sessions never touch it

let redis: TestRedis;
let client: Redis;
let store: Store;
const supervisors: SessionSupervisor[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  client = await connectRedis({ url: redis.url });
  store = new Store(client, 'parley');
});

afterAll(async () => {
  client?.destroy();
  await redis?.close();
});

beforeEach(async () => {
  await redis.flush();
});

afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.drain(1_000);
});

/** A running session that ends (recording its end, as VoiceSession does) when told to shut down. */
class StandIn implements LiveSession {
  readonly done: Promise<SessionEndReason>;
  shutdowns = 0;
  private resolve!: (reason: SessionEndReason) => void;
  constructor(private readonly sessionId: string) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }
  shutdown(): void {
    this.shutdowns++;
    void this.end('shutdown');
  }
  async end(reason: SessionEndReason): Promise<void> {
    await store.sessions.end(this.sessionId, reason);
    this.resolve(reason);
  }
}

interface Bed {
  supervisor: SessionSupervisor;
  started: StandIn[];
  ended: { sessionId: string; reason: SessionEndReason }[];
}

function supervisor(start?: StartSession, options: Partial<SupervisorOptions> = {}): Bed {
  const started: StandIn[] = [];
  const ended: Bed['ended'] = [];
  const s = new SessionSupervisor({
    store,
    logger,
    leaseTtlMs: 3_000,
    recorder: {
      ended: async (_agent, sessionId, reason) => {
        ended.push({ sessionId, reason });
        return store.sessions.end(sessionId, reason);
      },
    },
    start:
      start ??
      (async (_agent, session) => {
        const live = new StandIn(session.id);
        started.push(live);
        return live;
      }),
    ...options,
  });
  s.start();
  supervisors.push(s);
  return { supervisor: s, started, ended };
}

async function agentAndSession(): Promise<{ agent: StoredAgent; session: Session }> {
  const created = await store.agents.create({ name: 'a', mode: 'passthrough', webhook_url: 'http://127.0.0.1:9/' });
  const agent = await store.agents.getStored(created.id);
  const session = await store.sessions.create({ agent_id: agent.id, type: 'voice', transport: 'websocket' });
  await store.leases.awaitMedia(session.id, 60_000);
  return { agent, session };
}

describe('SessionSupervisor', () => {
  it('reserves a session before it awaits: of two connections racing in, one gets it', async () => {
    const { agent, session } = await agentAndSession();
    let claims = 0;
    const leases = Object.create(store.leases) as Store['leases'];
    leases.claim = (...args) => {
      claims++;
      return store.leases.claim(...args);
    };
    const bed = supervisor(undefined, { store: { leases, errors: store.errors } });
    const results = await Promise.all([
      bed.supervisor.attach(agent, session, transport),
      bed.supervisor.attach(agent, session, transport),
    ]);
    expect(results).toContainEqual({ ok: true });
    expect(results).toContainEqual({ ok: false, refusal: 'already_connected' });
    expect(claims).toBe(1); // the second was refused by the reservation, before reaching Redis
    expect(bed.started).toHaveLength(1);
    expect(await store.leases.countLive()).toBe(1);
  });

  it('holds across instances: a second supervisor on the same Redis is refused while the lease lives', async () => {
    const { agent, session } = await agentAndSession();
    const a = supervisor();
    const b = supervisor();
    const results = await Promise.all([
      a.supervisor.attach(agent, session, transport),
      b.supervisor.attach(agent, session, transport),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results).toContainEqual({ ok: false, refusal: 'already_connected' });
    expect(a.started.length + b.started.length).toBe(1);
  });

  it('releases the lease once a session ends, and refuses the ended session afterwards', async () => {
    const { agent, session } = await agentAndSession();
    const bed = supervisor();
    expect(await bed.supervisor.attach(agent, session, transport)).toEqual({ ok: true });
    await bed.started[0]!.end('client_hangup');
    await eventually(
      () => store.leases.countLive(),
      (n) => n === 0,
      { what: 'lease released' },
    );
    expect(bed.supervisor.size).toBe(0);
    expect(await bed.supervisor.attach(agent, session, transport)).toEqual({ ok: false, refusal: 'session_ended' });
  });

  it('ends a session that fails to start alone: reason error, an error record, the lease released', async () => {
    const healthy = await agentAndSession();
    const broken = await agentAndSession();
    const bed = supervisor(async (_agent, session) => {
      if (session.id === broken.session.id) throw new Error('preset unreadable');
      const live = new StandIn(session.id);
      bed.started.push(live);
      return live;
    });
    expect(await bed.supervisor.attach(healthy.agent, healthy.session, transport)).toEqual({ ok: true });
    expect(await bed.supervisor.attach(broken.agent, broken.session, transport)).toEqual({
      ok: false,
      refusal: 'failed',
    });

    expect(await store.sessions.get(broken.session.id)).toMatchObject({ status: 'ended', end_reason: 'error' });
    expect(bed.ended).toEqual([{ sessionId: broken.session.id, reason: 'error' }]);
    const errors = await store.errors.list({ limit: 10 }, { session_id: broken.session.id });
    expect(errors.data).toMatchObject([
      { type: 'session_failed', message: expect.stringContaining('preset unreadable') },
    ]);
    // The other session runs on, and holds the only lease.
    expect(bed.supervisor.size).toBe(1);
    expect(await store.sessions.get(healthy.session.id)).toMatchObject({ status: 'active' });
    expect(await store.leases.countLive()).toBe(1);
  });

  it('records the end itself when a session finished without writing it', async () => {
    const { agent, session } = await agentAndSession();
    let resolve!: (r: SessionEndReason) => void;
    const bed = supervisor(async () => ({ done: new Promise((r) => (resolve = r)), shutdown: () => undefined }));
    expect(await bed.supervisor.attach(agent, session, transport)).toEqual({ ok: true });
    resolve('client_hangup'); // as if its own end record had failed
    await eventually(
      () => store.sessions.get(session.id),
      (s) => s.status === 'ended',
      { what: 'session ended' },
    );
    expect(await store.sessions.get(session.id)).toMatchObject({ end_reason: 'client_hangup' });
    await eventually(
      () => store.leases.countLive(),
      (n) => n === 0,
      { what: 'lease released' },
    );
  });

  it('refuses a session whose connect window has passed', async () => {
    const { agent, session } = await agentAndSession();
    await store.leases.awaitMedia(session.id, 1); // the window now ends 1 ms after this
    await new Promise((r) => setTimeout(r, 20));
    let expired = 0;
    const bed = supervisor(undefined, { onExpired: () => expired++ });
    expect(await bed.supervisor.attach(agent, session, transport)).toEqual({ ok: false, refusal: 'session_ended' });
    expect(expired).toBe(1);
    expect(bed.started).toHaveLength(0);
  });

  it('drain ends running sessions and one still starting, releases their leases, then refuses new ones', async () => {
    const running = await agentAndSession();
    const starting = await agentAndSession();
    let letStart!: () => void;
    const gate = new Promise<void>((r) => (letStart = r));
    const bed = supervisor(async (_agent, session) => {
      if (session.id === starting.session.id) await gate;
      const live = new StandIn(session.id);
      bed.started.push(live);
      return live;
    });
    expect(await bed.supervisor.attach(running.agent, running.session, transport)).toEqual({ ok: true });
    const late = bed.supervisor.attach(starting.agent, starting.session, transport);
    await eventually(
      () => store.leases.countLive(),
      (n) => n === 2,
      { what: 'both claimed' },
    );

    const drained = bed.supervisor.drain(10_000);
    letStart();
    expect(await late).toEqual({ ok: true });
    await drained;

    expect(bed.started.map((s) => s.shutdowns)).toEqual([1, 1]);
    for (const { session } of [running, starting])
      expect(await store.sessions.get(session.id)).toMatchObject({ status: 'ended', end_reason: 'shutdown' });
    expect(await store.leases.countLive()).toBe(0);
    expect(bed.supervisor.size).toBe(0);
    const next = await agentAndSession();
    expect(await bed.supervisor.attach(next.agent, next.session, transport)).toEqual({
      ok: false,
      refusal: 'shutting_down',
    });
  });

  it('stops a session whose record was ended elsewhere, at the next lease renewal', async () => {
    const { agent, session } = await agentAndSession();
    const bed = supervisor(undefined, { leaseTtlMs: 300 });
    expect(await bed.supervisor.attach(agent, session, transport)).toEqual({ ok: true });
    await store.sessions.end(session.id, 'agent_deleted');
    await eventually(
      () => bed.started[0]!.shutdowns,
      (n) => n === 1,
      { what: 'the session told to stop' },
    );
    await eventually(
      () => bed.supervisor.size,
      (n) => n === 0,
      { what: 'the session gone' },
    );
    expect(await store.sessions.get(session.id)).toMatchObject({ end_reason: 'agent_deleted' });
  });
});
