import { faultKinds, FaultUpstream, type FaultKind } from '../../test/support/fault-upstream.js';
import { createLaneAgent, dripGapMs, faultEnv, type LaneAgent } from '../../test/support/fault-lanes.js';
import { typing, type Caller } from '../../test/support/fault-matrix.js';
import { logsOf } from '../../test/support/main-process.js';
import { startNodes, stopNodes, type ParleyNode } from '../../test/support/parley-nodes.js';
import { TestRedis } from '../../test/support/redis-server.js';
import { speechCaller } from '../../test/support/speech-caller.js';
import { settledMemory, type ProcessMemory } from '../lib/inspector-memory.js';
import { soakCaller, type CallerTally } from './soak-caller.js';

/**
 * One phase of the soak: a fresh redis-server and Parley (`PARLEY_WORKERS=2`, the inspector open
 * so memory is read after a full GC) on a FaultUpstream; N callers of four kinds (typed turns to
 * an enhanced agent, to one with a tool, to a passthrough agent's webhook, and real speech to an
 * enhanced agent) talk for the phase's length while `faultShare` of all upstream calls fail, each
 * with a fault kind and a moment (0–300 ms into the call) picked at random.
 */

export interface PhaseOptions {
  name: 'baseline' | 'faults';
  sessions: number;
  seconds: number;
  faultShare: number;
  random: () => number;
}

export interface PhaseResult {
  phase: string;
  fault_share: number;
  sessions: number;
  seconds: number;
  turns: {
    answered: number;
    failed: number;
    silent: number;
    closed: number;
    interrupted: number;
    hung_up: number;
    /** Calls that could not be opened (a worker gone mid-request). */
    open_failures: number;
  };
  /** The server (its primary) was gone by the end: it gave up restarting workers. */
  server_exited: boolean;
  upstream_calls: number;
  faulted_calls: Record<FaultKind, number>;
  /** Error records by type. */
  records: Record<string, number>;
  /** Sessions with more `turn_failed` messages than records of a turn-failing type. */
  failed_turns_without_record: number;
  /** Turns that came to nothing in time, by caller kind, with what the caller saw. */
  unfinished_turns: { kind: string; session: string; moment: string; outcome: string; seen: string }[];
  /** Sessions the caller hung up that did not end `client_hangup`. */
  hang_ups_ended_otherwise: string[];
  restarts: number;
  crash_log_lines: string[];
  same_worker_pids: boolean;
  memory_before: ProcessMemory[];
  memory_after: ProcessMemory[];
  /** Event-loop delay p99 of the worst worker: over the warm-up, the first and the last minute of load, and idle after. */
  loop_lag_p99_ms: { warmup: number; first_minute: number; last_minute: number; idle_after: number };
}

const turnFailingTypes = /^(stt_error|tts_error|llm_error|llm_timeout|webhook_\w+|turn_error)$/;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Metrics {
  workers: { restarts: number };
  processes: { pid: number; event_loop: { lag_p99_ms: number } }[];
}

/** The worst worker's loop delay p99 since the last read (each read starts a new window). */
async function loopLag(node: ParleyNode): Promise<number> {
  const m = (await node.request('GET', '/health/metrics', { apiKey: null })).body as Metrics;
  return Math.max(0, ...m.processes.map((p) => p.event_loop.lag_p99_ms));
}

export async function runPhase(options: PhaseOptions): Promise<PhaseResult> {
  const { random } = options;
  const redis = await TestRedis.start();
  const upstream = await FaultUpstream.start({ dripGapMs });
  const [node] = await startNodes(redis, 1, {
    PARLEY_WORKERS: '2',
    ...faultEnv(upstream),
    NODE_OPTIONS: '--inspect=127.0.0.1:0',
  });
  try {
    const api = node!;
    const pids = api.servingPids();
    const kinds: { agent: LaneAgent; caller: Caller }[] = [
      { agent: await createLaneAgent(api, upstream, 'typed'), caller: typing },
      { agent: await createLaneAgent(api, upstream, 'tools', { tools: true }), caller: typing },
      { agent: await createLaneAgent(api, upstream, 'webhook', { mode: 'passthrough' }), caller: typing },
      { agent: await createLaneAgent(api, upstream, 'speech'), caller: speechCaller() },
    ];
    const kindNames = ['typed', 'tools', 'webhook', 'speech'];
    const callers = Array.from({ length: options.sessions }, (_, i) => kinds[i % kinds.length]!);
    const run = (seconds: number) => {
      const deadline = performance.now() + seconds * 1000;
      return Promise.all(callers.map((k) => soakCaller({ api, ...k, deadline, answerWithinMs: 15_000, random })));
    };

    // warm-up, healthy: every kind of turn has run once in each worker before memory is read
    await loopLag(api);
    await run(15);
    const warmupLag = await loopLag(api);
    await wait(3_000);
    const memoryBefore = await settledMemory(api.main.stderr(), pids);

    const callsBefore = upstream.calls.length;
    upstream.pickFaults(() =>
      random() < options.faultShare
        ? { kind: faultKinds[Math.floor(random() * faultKinds.length)]!, holdMs: Math.round(random() * 300) }
        : null,
    );
    const lags: { at: number; lag: number }[] = [];
    const started = performance.now();
    await loopLag(api);
    const sampler = setInterval(() => {
      loopLag(api).then(
        (lag) => lags.push({ at: performance.now() - started, lag }),
        () => undefined, // the server is down (a crash): the restarts and the log say so
      );
    }, 10_000);
    const tallies = await run(options.seconds);
    clearInterval(sampler);
    upstream.pickFaults(null);
    const calls = upstream.calls.slice(callsBefore);

    await wait(5_000);
    const crashes = logsOf(api.main, /uncaught exception|unhandled promise rejection|exited unexpectedly/);
    const exited = api.main.child.exitCode !== null || api.main.child.signalCode !== null;
    // a server that gave up on its workers answers nothing more: what the log says is the result
    const idleLag = exited ? Number.NaN : await loopLag(api);
    const memoryAfter = exited ? [] : await settledMemory(api.main.stderr(), pids);
    const metrics: Metrics = exited
      ? { workers: { restarts: logsOf(api.main, /exited unexpectedly/).length }, processes: [] }
      : ((await api.request('GET', '/health/metrics', { apiKey: null })).body as Metrics);
    const summary = exited
      ? { by_type: {} }
      : ((await api.request('GET', '/admin/v1/errors/stats/summary')).body as {
          by_type: Record<string, { total: number }>;
        });
    const lastMinute = lags.filter((l) => l.at > options.seconds * 1000 - 60_000);
    return {
      phase: options.name,
      fault_share: options.faultShare,
      sessions: options.sessions,
      seconds: options.seconds,
      turns: totals(tallies),
      upstream_calls: calls.length,
      faulted_calls: Object.fromEntries(
        faultKinds.map((k) => [k, calls.filter((c) => c.fault === k).length]),
      ) as Record<FaultKind, number>,
      records: Object.fromEntries(Object.entries(summary.by_type).map(([type, n]) => [type, n.total])),
      failed_turns_without_record: exited ? Number.NaN : await unrecordedFailures(api, tallies),
      hang_ups_ended_otherwise: exited ? [] : await hangUpsEndedOtherwise(api, tallies),
      unfinished_turns: tallies.flatMap((t, i) =>
        t.unfinished.map((u) => ({ kind: kindNames[i % kindNames.length]!, ...u, seen: u.seen.join(',') })),
      ),
      server_exited: exited,
      restarts: metrics.workers.restarts,
      crash_log_lines: crashes.map((l) => {
        const err = l['err'] as { message?: string } | undefined;
        return `${String(l['msg'])}${err?.message === undefined ? '' : `: ${err.message}`}`;
      }),
      same_worker_pids: JSON.stringify(metrics.processes.map((p) => p.pid).sort()) === JSON.stringify([...pids].sort()),
      memory_before: memoryBefore,
      memory_after: memoryAfter,
      loop_lag_p99_ms: {
        warmup: warmupLag,
        first_minute: Math.max(0, ...lags.filter((l) => l.at <= 60_000).map((l) => l.lag)),
        last_minute: Math.max(0, ...lastMinute.map((l) => l.lag)),
        idle_after: idleLag,
      },
    };
  } finally {
    await stopNodes([node!]);
    await upstream.close();
    await redis.close();
  }
}

function totals(tallies: CallerTally[]): PhaseResult['turns'] {
  const sum = (pick: (t: CallerTally) => number) => tallies.reduce((n, t) => n + pick(t), 0);
  return {
    answered: sum((t) => t.outcomes.answered),
    failed: sum((t) => t.outcomes.failed),
    silent: sum((t) => t.outcomes.silent),
    closed: sum((t) => t.outcomes.closed),
    interrupted: sum((t) => t.interrupted),
    hung_up: sum((t) => t.hungUp),
    open_failures: sum((t) => t.openFailures),
  };
}

/** Sessions whose `turn_failed` messages outnumber their records of a turn-failing type. */
async function unrecordedFailures(api: ParleyNode, tallies: CallerTally[]): Promise<number> {
  let unrecorded = 0;
  for (const t of tallies) {
    for (const [sessionId, failed] of Object.entries(t.turnFailedBySession)) {
      if (failed === 0) continue;
      const res = await api.request('GET', `/admin/v1/errors?session_id=${sessionId}&limit=100`);
      const recorded = (res.body.data as { type: string }[]).filter((r) => turnFailingTypes.test(r.type)).length;
      if (recorded < failed) unrecorded++;
    }
  }
  return unrecorded;
}

async function hangUpsEndedOtherwise(api: ParleyNode, tallies: CallerTally[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const id of tallies.flatMap((t) => t.hungUpSessions)) {
    const res = await api.request('GET', `/admin/v1/sessions/${id}`);
    if (res.body.end_reason !== 'client_hangup') wrong.push(`${id}: ${String(res.body.end_reason)}`);
  }
  return wrong;
}
