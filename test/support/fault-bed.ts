import { createClient } from 'redis';
import { afterAll, beforeAll, type ExpectStatic } from 'vitest';
import type { ErrorRecord } from '../../src/schemas/error-record.js';
import { Keys } from '../../src/store/keys.js';
import type { RequestOptions, TestResponse } from './admin-client.js';
import { ControlCalls } from './control-calls.js';
import { eventually } from './eventually.js';
import {
  createLaneAgent,
  dripGapMs,
  faultEnv,
  openVoiceCall,
  type LaneAgent,
  type LaneAgentSettings,
  type VoiceCall,
} from './fault-lanes.js';
import { FaultUpstream } from './fault-upstream.js';
import { logsOf } from './main-process.js';
import { startNodes, stopNodes, type ParleyNode } from './parley-nodes.js';
import { TestRedis } from './redis-server.js';
import type { VoiceClient } from './voice-client.js';

/**
 * A fault-injection bed for one test file: a redis-server, a FaultUpstream standing in for every
 * provider and for the operator's webhook and tool, and one real Parley (src/main.ts) with two
 * worker processes (`PARLEY_WORKERS=2`) using it. Two healthy control calls, one on each worker,
 * talk all along. `finish` checks what must hold after any fault: the same worker processes, no
 * crash in the log, no `session_failed`, every control turn answered, no 5xx but 502/503/504.
 */

export interface FaultBed {
  readonly upstream: FaultUpstream;
  /** An agent whose STT, LLM, TTS, webhook and tool calls all go to `lane` of the upstream. */
  agent(lane: string, settings?: LaneAgentSettings): Promise<LaneAgent>;
  /** A WebSocket voice session of the agent, connected and `ready`. */
  call(agent: LaneAgent): Promise<VoiceCall>;
  /** The error records of a session, oldest first. */
  errorsOf(sessionId: string): Promise<ErrorRecord[]>;
  /** A request through the admin client that remembers every 5xx other than 502, 503 and 504. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Stops the control calls and asserts that the server came through unharmed. */
  finish(expect: ExpectStatic): Promise<void>;
}

export function faultBed(): FaultBed {
  let redis: TestRedis | undefined;
  let upstream: FaultUpstream | undefined;
  let node: ParleyNode | undefined;
  let workerPids: number[] = [];
  let controls: ControlCalls | undefined;
  const unexpected5xx: string[] = [];

  const request = async (method: string, path: string, opts?: RequestOptions): Promise<TestResponse> => {
    const res = await node!.request(method, path, opts);
    if (res.status >= 500 && ![502, 503, 504].includes(res.status))
      unexpected5xx.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };

  const tracked = { request };
  const bed: FaultBed = {
    get upstream() {
      return upstream!;
    },
    request,
    agent: (lane, settings) => createLaneAgent(tracked, upstream!, lane, settings),
    call: (agent) => openVoiceCall(tracked, agent),
    async errorsOf(sessionId) {
      const res = await request('GET', `/admin/v1/errors?session_id=${sessionId}&limit=100`);
      return [...(res.body.data as ErrorRecord[])].sort((a, b) => a.created_at.localeCompare(b.created_at));
    },
    async finish(expect) {
      const turns = await controls!.stop();
      const crashes = logsOf(node!.main, /uncaught exception|unhandled promise rejection|exited unexpectedly/).map(
        (l) => `${String(l['msg'])}: ${String((l['err'] as { message?: string } | undefined)?.message ?? '')}`,
      );
      const metrics = await request('GET', '/health/metrics', { apiKey: null }).catch((err: Error) => ({
        body: { workers: `unreachable: ${err.message}`, processes: [] },
      }));
      const failed = await request('GET', '/admin/v1/errors?type=session_failed&limit=100').catch(() => ({
        body: { data: [] },
      }));
      // all in one comparison, so that a failure shows every way the server was harmed
      expect({
        crashes,
        workers: metrics.body.workers,
        pids: (metrics.body.processes as { pid: number }[]).map((p) => p.pid).sort(),
        unansweredControlTurns: controls!.unanswered().map((t) => `${t.text}: ${t.outcome} (${t.seen.join(',')})`),
        controlsClosed: controls!.clients.filter((c) => c.closeCode !== null).length,
        sessionFailed: (failed.body.data as ErrorRecord[]).map((r) => `${r.session_id}: ${r.message}`),
        unexpected5xx,
      }).toEqual({
        crashes: [],
        workers: { configured: 2, running: 2, restarts: 0 },
        pids: [...workerPids].sort(),
        unansweredControlTurns: [],
        controlsClosed: 0,
        sessionFailed: [],
        unexpected5xx: [],
      });
      // the controls talked all along, on both workers
      expect(turns.length).toBeGreaterThan(2 * controls!.clients.length);
    },
  };

  beforeAll(async () => {
    redis = await TestRedis.start();
    upstream = await FaultUpstream.start({ dripGapMs });
    [node] = await startNodes(redis, 1, { PARLEY_WORKERS: '2', ...faultEnv(upstream) });
    workerPids = node!.servingPids();
    if (workerPids.length !== 2) throw new Error(`expected two workers, got ${JSON.stringify(workerPids)}`);
    controls = new ControlCalls(await callsOnEveryWorker(bed, redis, workerPids), {
      pauseMs: 300,
      answerWithinMs: 10_000,
    });
  }, 90_000);

  afterAll(async () => {
    await controls?.stop().catch(() => undefined); // finish() already asserted on them, or the file failed earlier
    if (node !== undefined) await stopNodes([node]);
    await upstream?.close();
    await redis?.close();
  }, 60_000);

  return bed;
}

/**
 * Control calls until each worker runs one: the cluster spreads connections itself, so sessions
 * are opened until the holder of their lease (host/pid/random, in Redis) covers both pids.
 */
async function callsOnEveryWorker(bed: FaultBed, redis: TestRedis, pids: number[]): Promise<VoiceClient[]> {
  const control = await bed.agent('control');
  const db = createClient({ url: redis.url });
  await db.connect();
  const keys = new Keys();
  const byPid = new Map<number, VoiceClient>();
  try {
    for (let i = 0; i < 12 && byPid.size < pids.length; i++) {
      const { client, sessionId } = await bed.call(control);
      const holder = await eventually(
        () => db.hGet(keys.sessionLeaseHolders(), sessionId),
        (h) => typeof h === 'string',
        { what: `the lease of ${sessionId}` },
      );
      const pid = Number(holder!.split('/')[1]);
      if (byPid.has(pid)) client.close();
      else byPid.set(pid, client);
    }
  } finally {
    await db.quit();
  }
  if (byPid.size < pids.length) throw new Error(`control calls reached only workers ${[...byPid.keys()].join(', ')}`);
  return [...byPid.values()];
}
