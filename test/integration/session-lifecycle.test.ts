import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';
import { builtMain } from '../support/main-process.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { freePort, TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';
import { testModelsDir } from '../support/test-models.js';

/**
 * Voice sessions nobody runs end, whatever happened to the process that created or ran them:
 * through a real redis-server, real Parley instances (one in a child process, to kill -9) and the
 * WebSocket media endpoint.
 */

const env = {
  PARLEY_VOICE_CONNECT_WINDOW_MS: '3000',
  PARLEY_SESSION_LEASE_TTL_MS: '3000',
  PARLEY_SESSION_SWEEP_INTERVAL_MS: '200',
};

let redis: TestRedis;
let events: HttpReceiver;
let p: TestParley;
const extra: TestParley[] = [];
const clients: VoiceClient[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  events = await HttpReceiver.start();
  p = await startParley(redis, env);
});

afterAll(async () => {
  await p?.close();
  await events?.close();
  await redis?.close();
});

beforeEach(async () => {
  await redis.flush();
  events.requests.length = 0;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const x of extra.splice(0)) await x.close();
});

async function createAgent(on: TestParley = p): Promise<string> {
  const res = await on.request('POST', '/admin/v1/agents', {
    body: {
      name: 'a',
      mode: 'passthrough',
      webhook_url: 'http://127.0.0.1:9/',
      events_url: events.url,
      greeting: null,
    },
  });
  expect(res.status).toBe(201);
  return res.body.agent_token as string;
}

interface Grant {
  session_id: string;
  connection_token: string;
  connection_url: string;
}

async function openSession(agentToken: string, on: TestParley = p): Promise<Grant> {
  const res = await on.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agentToken, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  return res.body as Grant;
}

async function connect(url: string, token: string): Promise<VoiceClient> {
  const client = await VoiceClient.connect(url, token);
  clients.push(client);
  return client;
}

/** The same media endpoint on another instance. */
function on(instance: TestParley, connectionUrl: string): string {
  const url = new URL(connectionUrl);
  url.port = new URL(instance.url).port;
  return url.toString();
}

function sessionEnds(sessionId: string): { reason: unknown }[] {
  return events.requests
    .map((r) => r.json as { type: string; session_id: string; data: { reason: unknown } })
    .filter((e) => e.type === 'session_end' && e.session_id === sessionId)
    .map((e) => e.data);
}

async function liveSessions(on: TestParley = p): Promise<number> {
  const res = await on.request('GET', '/health/metrics', { apiKey: null });
  return res.body.sessions.live as number;
}

describe('connect window', () => {
  it('ends a voice session never connected, across a restart, with session_end', async () => {
    const token = await createAgent();
    const grant = await openSession(token);
    expect((await p.request('GET', `/admin/v1/sessions/${grant.session_id}`)).body.status).toBe('active');

    // Parley goes away before the window ends and is started again after it: the new process ends it.
    await p.close();
    await new Promise((r) => setTimeout(r, 3_200));
    p = await startParley(redis, env);

    const ended = await eventually(
      () => p.request('GET', `/admin/v1/sessions/${grant.session_id}`),
      (res) => res.body.status === 'ended',
      { what: 'the session ended', timeoutMs: 15_000 },
    );
    expect(ended.body.end_reason).toBe('never_connected');
    expect(ended.body.duration_ms).toBeNull(); // it never ran
    await events.until(() => sessionEnds(grant.session_id).length === 1, 15_000);
    expect(sessionEnds(grant.session_id)).toEqual([
      expect.objectContaining({ reason: 'never_connected', duration_ms: null }),
    ]);

    // The token is still valid, but the session is over.
    const late = await connect(on(p, grant.connection_url), grant.connection_token);
    await late.untilClosed();
    expect(late.closeCode).toBe(4409);
    expect(late.eventsOf('error')[0]).toMatchObject({ code: 'session_ended' });
  }, 60_000);

  it('leaves a session connected in time alone', async () => {
    const token = await createAgent();
    const grant = await openSession(token);
    const client = await connect(grant.connection_url, grant.connection_token);
    await client.untilEvent('ready');
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await p.request('GET', `/admin/v1/sessions/${grant.session_id}`)).body.status).toBe('active');
    expect(client.closeCode).toBeNull();
  });
});

describe('one media connection per session', () => {
  it('refuses a second connection on another instance while the first holds the lease', async () => {
    const other = await startParley(redis, env);
    extra.push(other);
    const token = await createAgent();
    const grant = await openSession(token);
    const [a, b] = await Promise.all([
      connect(grant.connection_url, grant.connection_token),
      connect(on(other, grant.connection_url), grant.connection_token),
    ]);
    await Promise.race([a.untilClosed(), b.untilClosed()]);
    const [winner, loser] = a.closeCode === null ? [a, b] : [b, a];
    expect(loser.closeCode).toBe(4409);
    expect(loser.eventsOf('error')[0]).toMatchObject({ code: 'already_connected' });
    await winner.untilEvent('ready');

    // Once the first hangs up the session is over for everyone.
    winner.sendJson({ type: 'end' });
    await winner.untilClosed();
    const third = await connect(on(other, grant.connection_url), grant.connection_token);
    await third.untilClosed();
    expect(third.closeCode).toBe(4409);
    expect(third.eventsOf('error')[0]).toMatchObject({ code: 'session_ended' });
  });
});

describe('/health/metrics', () => {
  it('counts sessions that run in a process, not records that are active', async () => {
    const token = await createAgent();
    const connected = await openSession(token);
    await openSession(token); // active, never connected
    const client = await connect(connected.connection_url, connected.connection_token);
    await client.untilEvent('ready');
    expect(await liveSessions()).toBe(1);
    const overview = await p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(overview.body.active).toBe(2);

    client.sendJson({ type: 'end' });
    await client.untilClosed();
    await eventually(liveSessions, (n) => n === 0, { what: 'no live session' });
  });
});

describe('owner lost', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('ends the sessions of a process killed with SIGKILL (owner_lost, session_end), from another instance', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [builtMain()], {
      cwd: projectRoot,
      env: {
        ...process.env,
        ...env,
        NODE_ENV: 'test',
        PARLEY_LOG_LEVEL: 'warn',
        PARLEY_HOST: '127.0.0.1',
        PORT: String(port),
        REDIS_URL: redis.url,
        PARLEY_ADMIN_API_KEY: testAdminKey,
        MODELS_DIR: await testModelsDir(),
        // One process, killed whole (test/integration/cluster.test.ts kills one worker of several).
        PARLEY_WORKERS: '1',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const childUrl = `http://127.0.0.1:${port}`;
    await eventually(
      () =>
        fetch(`${childUrl}/health/live`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200,
      { what: 'the child Parley listening', timeoutMs: 60_000, intervalMs: 200 },
    );
    const token = await createAgent();
    const res = await fetch(`${childUrl}/sdk/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent_token: token, transport: 'websocket' }),
    });
    const grant = (await res.json()) as Grant;
    expect(new URL(grant.connection_url).port).toBe(String(port));
    const client = await connect(grant.connection_url, grant.connection_token);
    await client.untilEvent('ready');
    expect(await liveSessions()).toBe(1); // seen from this instance: the child holds the lease

    child.kill('SIGKILL');
    await client.untilClosed();

    const ended = await eventually(
      () => p.request('GET', `/admin/v1/sessions/${grant.session_id}`),
      (r) => r.body.status === 'ended',
      { what: 'the session ended', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(ended.body.end_reason).toBe('owner_lost');
    await events.until(() => sessionEnds(grant.session_id).length === 1, 15_000);
    expect(sessionEnds(grant.session_id)).toEqual([expect.objectContaining({ reason: 'owner_lost' })]);
    expect(await liveSessions()).toBe(0);
  }, 120_000);
});

describe('owner lost, next start', () => {
  it('a process started after its owner died ends the session it left (owner_lost)', async () => {
    const token = await createAgent();
    const grant = await openSession(token);
    // As a process that claimed the session and then vanished would have left it.
    expect(await p.parley.store.leases.claim(grant.session_id, 'gone-host/1/dead', 3_000)).toBe('ok');
    await p.close();
    p = await startParley(redis, env);
    const ended = await eventually(
      () => p.request('GET', `/admin/v1/sessions/${grant.session_id}`),
      (r) => r.body.status === 'ended',
      { what: 'the session ended', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(ended.body.end_reason).toBe('owner_lost');
    await events.until(() => sessionEnds(grant.session_id).length === 1, 15_000);
  }, 60_000);
});

describe('Redis failure while accepting a media connection', () => {
  it('is refused as unavailable (4503 store_unavailable), not as a missing session', async () => {
    const token = await createAgent();
    const grant = await openSession(token);
    await redis.stopServer();
    try {
      const client = await connect(grant.connection_url, grant.connection_token);
      await client.untilClosed();
      expect(client.closeCode).toBe(4503);
      expect(client.eventsOf('error')[0]).toMatchObject({ code: 'store_unavailable' });
    } finally {
      await redis.startServer();
    }
    // Back up: media connections are accepted again.
    await eventually(
      async () => (await p.request('GET', '/health/ready', { apiKey: null })).status,
      (s) => s === 200,
      { what: 'ready again' },
    );
    const next = await openSession(token);
    const client = await connect(next.connection_url, next.connection_token);
    await client.untilEvent('ready');
  });

  it('a Redis outage of a few seconds (failed lease renewals) does not end a live session', async () => {
    const token = await createAgent();
    const grant = await openSession(token);
    const client = await connect(grant.connection_url, grant.connection_token);
    await client.untilEvent('ready');
    await redis.stopServer();
    await new Promise((r) => setTimeout(r, 2_000)); // two renewal periods (TTL 3 s) without Redis
    await redis.startServer();
    await eventually(liveSessions, (n) => n === 1, { what: 'the lease renewed', timeoutMs: 10_000 });
    // Longer than the reaper's settle time after the outage: the lease was renewed, not taken.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(client.closeCode).toBeNull();
    expect((await p.request('GET', `/admin/v1/sessions/${grant.session_id}`)).body.status).toBe('active');
    expect(await liveSessions()).toBe(1);
  }, 60_000);
});
