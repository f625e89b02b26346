import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../src/store/keys.js';
import { adminClient, type AdminClient } from '../support/admin-client.js';
import { eventually } from '../support/eventually.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import { HttpReceiver } from '../support/http-receiver.js';
import {
  isAlive,
  logsOf,
  startMain,
  stopMain,
  waitForExit,
  waitForLog,
  waitGone,
  type MainProcess,
} from '../support/main-process.js';
import { freePort, TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';
import { testModelsDir } from '../support/test-models.js';

/**
 * PARLEY_WORKERS=2 through the real entry point: one primary (admin key, embedded Redis) and two
 * worker processes on one port. A worker killed under load loses only its own sessions (ended
 * `owner_lost` with `session_end` by the other worker's reaper) and comes back; SIGTERM drains
 * every worker before Redis stops; /health/metrics reports each process and the totals.
 */

const adminKey = 'cluster-test-admin-key-0123456789';
const running: MainProcess[] = [];
const tempDirs: string[] = [];
let events: HttpReceiver;
let webhook: HttpReceiver;

beforeAll(async () => {
  events = await HttpReceiver.start();
  webhook = await HttpReceiver.start(() => ({ status: 200, body: { response: 'Still here.' } }));
});

afterEach(async () => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
});

afterAll(async () => {
  await events?.close();
  await webhook?.close();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function bootCluster(env: Record<string, string>) {
  const port = await freePort();
  const p = startMain({
    PORT: String(port),
    PARLEY_WORKERS: '2',
    PARLEY_ADMIN_API_KEY: adminKey,
    MODELS_DIR: await testModelsDir(),
    ...env,
  });
  running.push(p);
  await waitForLog(p, /^Parley listening on /, 60_000);
  const url = `http://127.0.0.1:${port}`;
  const workerPids = logsOf(p, /^worker process ready$/).map((l) => l['pid'] as number);
  return { p, url, api: adminClient(url, adminKey), workerPids };
}

/** GET on a fresh connection (no keep-alive socket that a killed worker might have held). */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

async function createVoiceAgent(api: AdminClient): Promise<string> {
  const res = await api.request('POST', '/admin/v1/agents', {
    body: { name: 'cluster', mode: 'passthrough', webhook_url: webhook.url, events_url: events.url },
  });
  expect(res.status).toBe(201);
  return res.body.agent_token as string;
}

async function openSession(api: AdminClient, agentToken: string) {
  const res = await api.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agentToken, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string };
}

/** Low noise at real time: every frame goes through the VAD, as a live microphone's would. */
function streamNoise(client: VoiceClient, seconds: number): Promise<void> {
  const samples = new Int16Array(16_000 * seconds).map(() => Math.round((Math.random() - 0.5) * 200));
  return client.stream({ samples, sampleRate: 16_000 });
}

function sessionEnds(): { session_id: string; data: { reason?: string } }[] {
  return events.requests
    .map((r) => r.json as { type: string; session_id: string; data: { reason?: string } })
    .filter((e) => e.type === 'session_end');
}

describe('two worker processes on external Redis', () => {
  let redis: TestRedis;
  let livekit: FakeLivekit;
  beforeAll(async () => {
    redis = await TestRedis.start();
    livekit = await FakeLivekit.start();
  });
  afterAll(async () => {
    await livekit?.stop();
    await redis?.close();
  });

  it('a worker killed under load loses only its own sessions (ended owner_lost), the other keeps serving, and it comes back', async () => {
    const { p, url, api, workerPids } = await bootCluster({
      REDIS_URL: redis.url,
      PARLEY_SESSION_LEASE_TTL_MS: '3000',
      PARLEY_SESSION_SWEEP_INTERVAL_MS: '500',
      ...livekit.env,
    });
    expect(workerPids).toHaveLength(2);
    // Each worker is a LiveKit agent worker of its own (LiveKit spreads jobs by their load).
    await eventually(
      () => Promise.resolve(livekit.registered('parley').length),
      (n) => n === 2,
      { timeoutMs: 15_000, what: 'both workers registered with LiveKit' },
    );
    const status = await api.request('GET', '/admin/v1/livekit/worker-status');
    expect((status.body.instances as { pid: number }[]).map((i) => i.pid).sort()).toEqual([...workerPids].sort());
    const token = await createVoiceAgent(api);

    // Sessions on both workers: each WebSocket is a new connection, spread across the workers.
    const db = createClient({ url: redis.url });
    await db.connect();
    const keys = new Keys();
    const sessions: { client: VoiceClient; sessionId: string; pid: number }[] = [];
    try {
      for (let i = 0; i < 10 && (sessions.length < 4 || new Set(sessions.map((s) => s.pid)).size < 2); i++) {
        const { client, sessionId } = await openSession(api, token);
        const holder = await db.hGet(keys.sessionLeaseHolders(), sessionId);
        sessions.push({ client, sessionId, pid: Number(holder?.split('/')[1]) });
      }
    } finally {
      await db.quit();
    }
    expect(new Set(sessions.map((s) => s.pid))).toEqual(new Set(workerPids));
    const victim = sessions[0]!.pid;
    const lost = sessions.filter((s) => s.pid === victim);
    const kept = sessions.filter((s) => s.pid !== victim);

    // Load: every session streams audio at real time while the worker is killed.
    const load = sessions.map((s) => streamNoise(s.client, 6));
    process.kill(victim, 'SIGKILL');
    await waitForLog(p, /^worker process exited unexpectedly/, 10_000);

    // The other worker: HTTP answers, its sessions stay connected and answer a turn.
    for (let i = 0; i < 6; i++) expect(await freshGet(`${url}/health`)).toBe(200);
    for (const s of kept) {
      s.client.sendJson({ type: 'text', text: 'are you there?' });
      expect((await s.client.untilAnswer(1, 20_000))['text']).toBe('Still here.');
      expect(s.client.closeCode).toBeNull();
    }
    for (const s of lost) await s.client.untilClosed(10_000);
    await Promise.all(load);

    // The killed worker's sessions: ended owner_lost through the lease reaper, with session_end.
    for (const s of lost) {
      const record = await eventually(
        () => api.request('GET', `/admin/v1/sessions/${s.sessionId}`),
        (r) => r.body.status === 'ended',
        { timeoutMs: 20_000, what: `session ${s.sessionId} ended` },
      );
      expect(record.body.end_reason).toBe('owner_lost');
    }
    await events.until(() => lost.every((s) => sessionEnds().some((e) => e.session_id === s.sessionId)), 15_000);
    for (const s of kept) {
      expect((await api.request('GET', `/admin/v1/sessions/${s.sessionId}`)).body.status).toBe('active');
    }

    // It comes back in the same slot, and the metrics list both processes again.
    const restarted = await waitForLog(p, /^worker process restarted$/, 30_000);
    // A restarted worker (in either slot) does not say again what the server uses.
    expect(logsOf(p, /^stt: /)).toHaveLength(1);
    const metrics = await eventually(
      () => api.request('GET', '/health/metrics', { apiKey: null }),
      (r) => r.body.processes.length === 2,
      { timeoutMs: 10_000, what: 'both workers in the metrics' },
    );
    expect(metrics.body.workers).toEqual({ configured: 2, running: 2, restarts: 1 });
    const pids = (metrics.body.processes as { pid: number }[]).map((x) => x.pid).sort();
    expect(pids).toEqual([restarted['pid'] as number, kept[0]!.pid].sort());
    expect(isAlive(victim)).toBe(false);
    await eventually(
      () => Promise.resolve(livekit.registered('parley').length),
      (n) => n === 2,
      { timeoutMs: 15_000, what: 'the restarted worker registered with LiveKit' },
    );

    for (const s of kept) s.client.close();
    expect(await stopMain(p)).toEqual({ code: 0, signal: null });
  }, 120_000);
});

describe('a worker that cannot start', () => {
  it("stops the whole start with exit 1 and the worker's reason (here: the port is taken)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const redis = await TestRedis.start();
    try {
      const p = startMain({
        PORT: String(port),
        PARLEY_WORKERS: '2',
        PARLEY_ADMIN_API_KEY: adminKey,
        REDIS_URL: redis.url,
      });
      running.push(p);
      const { code } = await waitForExit(p, 60_000);
      expect(code).toBe(1);
      expect(p.stderr()).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(logsOf(p, /^Parley listening on /)).toHaveLength(0);
    } finally {
      taken.close();
      await redis.close();
    }
  }, 90_000);
});

describe('two worker processes on the embedded Redis', () => {
  it('starts Redis once, reports metrics per process and in total, and drains every worker before Redis stops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-cluster-'));
    tempDirs.push(dataDir);
    const { p, api, workerPids } = await bootCluster({ PARLEY_DATA_DIR: dataDir });

    // One redis-server, a child of the primary.
    expect(logsOf(p, /^embedded redis-server started$/)).toHaveLength(1);
    const redisPid = logsOf(p, /^embedded redis-server started$/)[0]!['pid'] as number;
    const redisChildren = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          return stat.includes('(redis-server)') && stat.split(') ')[1]!.split(' ')[1] === String(p.child.pid);
        } catch {
          return false; // exited while listing
        }
      });
    expect(redisChildren).toEqual([String(redisPid)]);

    // What the server uses is said once, by worker 1, not once per worker.
    const report = logsOf(p, /^(stt|llm|tts|embeddings): |Smart Turn model|^phone calls /);
    expect(report.map((l) => l['msg'] as string).filter((m) => /^(stt|llm|tts|embeddings): /.test(m))).toHaveLength(4);
    expect(report).toHaveLength(6);
    expect(new Set(report.map((l) => l['worker']))).toEqual(new Set([1]));

    // Sessions on both workers, seen in the per-process metrics.
    const token = await createVoiceAgent(api);
    const sessions: Awaited<ReturnType<typeof openSession>>[] = [];
    const perProcess = async () => {
      const res = await api.request('GET', '/health/metrics', { apiKey: null });
      return res.body as {
        http: { requests: number };
        sessions: { live: number };
        voice_sessions: { by_transport: Record<string, number> };
        processes: {
          pid: number;
          http: { requests: number };
          voice_sessions: { by_transport: Record<string, number> };
        }[];
      };
    };
    let json = await perProcess();
    for (let i = 0; i < 8 && json.processes.some((x) => (x.voice_sessions.by_transport['websocket'] ?? 0) === 0); i++) {
      sessions.push(await openSession(api, token));
      json = await perProcess();
    }
    expect(json.processes.map((x) => x.pid).sort()).toEqual([...workerPids].sort());
    expect(json.processes.every((x) => (x.voice_sessions.by_transport['websocket'] ?? 0) > 0)).toBe(true);
    expect(json.voice_sessions.by_transport['websocket']).toBe(sessions.length);
    expect(json.sessions.live).toBe(sessions.length);
    expect(json.http.requests).toBe(json.processes.reduce((n, x) => n + x.http.requests, 0));

    // Prometheus: each worker's series with its label, the total without it.
    const text = (await api.request('GET', '/health/metrics', { apiKey: null, headers: { Accept: 'text/plain' } }))
      .body as string;
    const gauge = (labels: string) =>
      Number(new RegExp(`^parley_voice_sessions\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    const w1 = gauge('transport="websocket",worker="1"');
    const w2 = gauge('transport="websocket",worker="2"');
    expect(w1).toBeGreaterThan(0);
    expect(w2).toBeGreaterThan(0);
    expect(gauge('transport="websocket"')).toBe(w1 + w2);
    expect(text.match(/^# TYPE parley_voice_sessions gauge$/gm)).toHaveLength(1);
    // A gauge about all replicas is not summed over the workers (its aggregator is `max`).
    expect(text).toMatch(new RegExp(`^parley_live_sessions ${sessions.length}$`, 'm'));
    expect(text).toMatch(new RegExp(`^parley_live_sessions\\{worker="2"\\} ${sessions.length}$`, 'm'));

    // SIGTERM: every session on every worker ends `shutdown`, then Redis stops, exit 0.
    expect(await stopMain(p, 40_000)).toEqual({ code: 0, signal: null });
    for (const { client } of sessions) {
      await client.untilClosed();
      expect(client.eventsOf('ended')[0]).toMatchObject({ reason: 'shutdown' });
    }
    expect(await waitGone(redisPid, 5_000)).toBe(true);
    expect(logsOf(p, /^worker process exited$/)).toHaveLength(2);

    // The records were written before Redis stopped: a new start reads them final.
    const next = await bootCluster({ PARLEY_DATA_DIR: dataDir, PARLEY_WORKERS: '1' });
    for (const { sessionId } of sessions) {
      const record = await next.api.request('GET', `/admin/v1/sessions/${sessionId}`);
      expect(record.body).toMatchObject({ status: 'ended', end_reason: 'shutdown' });
    }
    await events.until(() => sessions.every((s) => sessionEnds().some((e) => e.session_id === s.sessionId)), 15_000);
    expect(await stopMain(next.p)).toEqual({ code: 0, signal: null });
  }, 150_000);
});
