/**
 * bench/scale.ts's load step: N voice sessions, spread round-robin over k nodes on one Redis,
 * each speaking the scale clip at real-time pace (the voice bench's client process, `talk` job),
 * with Redis's commands and CPU, the nodes' CPU and the load generator's CPU over the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './percentiles.js';
import { traceRedis, type TracedCommand } from './redis-trace.js';
import type { ScaleClip } from './scale-clip.js';
import { createBenchAgent, openSessions, shareOf, timingsOf } from './bench-api.js';
import {
  callsBetween,
  nodesCpuMs,
  startNodes,
  stopNodes,
  total,
  type ParleyNode,
  type RedisStats,
} from './scale-nodes.js';
import { processCpuMs } from './cpu-time.js';
import type { VoiceClientProcess } from './voice-client-process.js';
import type { ChildMessage, TalkResult } from './voice-load-protocol.js';

export interface Pcts {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export function pcts(values: number[]): Pcts {
  const sorted = Float64Array.from(values).sort();
  return {
    count: sorted.length,
    p50_ms: percentile(sorted, 50),
    p95_ms: percentile(sorted, 95),
    p99_ms: percentile(sorted, 99),
  };
}

export interface LoadRow {
  nodes: number;
  sessions: number;
  session_seconds: number;
  turns_answered: number;
  turns_missed: number;
  frames: number;
  redis_commands: number;
  redis_commands_per_turn: number;
  redis_commands_per_session_s: number;
  /** Per command name, calls per turn (largest first). */
  redis_commands_per_turn_by_name: Record<string, number>;
  /** The nodes alone, no sessions: Redis commands per second, over `idle_window_s`. */
  redis_idle_commands_per_s: number;
  idle_window_s: number;
  redis_idle_by_name: Record<string, number>;
  /**
   * A separate pass under MONITOR (`traced_sessions` sessions, the same clip; nothing timed): the
   * commands clients sent (those run inside Lua scripts left out) per turn, by name, less the
   * nodes' idle traffic over the same time (MONITOR over the idle window); names under 0.05 per
   * turn left out.
   */
  traced_sessions: number;
  client_commands_per_turn: number;
  client_commands_per_turn_by_name: Record<string, number>;
  redis_cpu_ms_per_session_s: number;
  /** The nodes alone, no sessions: their CPU, ms per second, over `idle_window_s`. */
  parley_idle_cpu_ms_per_s: number;
  parley_cpu_ms_per_session_s: number;
  /** The same less the nodes' idle CPU over the step's wall time: what the sessions themselves cost. */
  parley_session_cpu_ms_per_session_s: number;
  step_wall_s: number;
  client_cpu_ms_per_session_s: number;
  /** The client's speech-end frame sent → first `audio_start` (what the user waits). */
  user_wait: Pcts;
  parley_end_to_end: Pcts;
  parley_share: Pcts;
  errors: string[];
}

export interface LoadPlan {
  redisUrl: string;
  webhookUrl: string;
  redis: RedisStats;
  clients: VoiceClientProcess;
  clip: ScaleClip;
  warmClip: ScaleClip;
  frameMs: number;
  sessions: number;
  idleWindowMs: number;
  graceMs: number;
  traceSessions: number;
}

const isTalk = (m: ChildMessage): m is TalkResult => 'job' in m && m.job === 'talk';

async function talk(plan: LoadPlan, nodes: ParleyNode[], agentToken: string, n: number, clip: ScaleClip) {
  const grants = await openSessions(
    nodes.map((x) => x.url),
    agentToken,
    n,
    16,
  );
  const result = await plan.clients.ask(
    {
      job: 'talk',
      sessions: grants,
      frameMs: plan.frameMs,
      clipPath: clip.path,
      speechEndFrames: clip.speechEndFrames,
      staggerMs: clip.repeatMs,
      graceMs: plan.graceMs,
    },
    isTalk,
  );
  return { grants, result };
}

/** Commands by name (scripts by file), the bench's own INFO and ECHO left out. */
function countByName(commands: TracedCommand[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of commands)
    if (c.command !== 'INFO' && c.command !== 'ECHO') out.set(c.command, (out.get(c.command) ?? 0) + 1);
  return out;
}

/** Starts `k` nodes, warms them up (a session each, not counted), measures, stops them. */
export async function loadStep(plan: LoadPlan, k: number): Promise<LoadRow> {
  const nodes = await startNodes(k, plan.redisUrl);
  try {
    const agent = { name: 'Bench scale agent', webhook_url: plan.webhookUrl, greeting: null };
    const agentToken = (await createBenchAgent(nodes[0]!.url, agent)).agent_token;
    await talk(plan, nodes, agentToken, k * 2, plan.warmClip);
    await sleep(2_000); // the warm-up sessions' ends
    // the nodes alone: what k nodes ask of Redis with nothing to do (under MONITOR too, for the pass below)
    let idleCalls: Record<string, number> = {};
    let idleCpu = 0;
    const idleTrace = countByName(
      await traceRedis(plan.redisUrl, async () => {
        const idle0 = { redis: await plan.redis.read(), parley: nodesCpuMs(nodes) };
        await sleep(plan.idleWindowMs);
        idleCalls = callsBetween(idle0.redis, await plan.redis.read());
        idleCpu = nodesCpuMs(nodes) - idle0.parley;
      }),
    );

    const before = {
      redis: await plan.redis.read(),
      parley: nodesCpuMs(nodes),
      clients: processCpuMs(plan.clients.pid),
      at: performance.now(),
    };
    const { grants, result } = await talk(plan, nodes, agentToken, plan.sessions, plan.clip);
    const after = {
      redis: await plan.redis.read(),
      parley: nodesCpuMs(nodes),
      clients: processCpuMs(plan.clients.pid),
      at: performance.now(),
    };
    // the talk job hangs up before it answers: the sessions' ends are in the window
    const timings = await timingsOf(
      nodes[0]!.url,
      grants.map((g) => g.session_id),
    );
    // A pass under MONITOR (nothing timed): what clients send per turn, the nodes' idle traffic
    // over the same time taken out.
    let tracedTurns = 0;
    let tracedMs = 0;
    const traced = countByName(
      await traceRedis(plan.redisUrl, async () => {
        const t0 = performance.now();
        const pass = await talk(plan, nodes, agentToken, plan.traceSessions, plan.clip);
        tracedMs = performance.now() - t0;
        tracedTurns = pass.result.waits_ms.flat().filter((w) => w !== null).length;
      }),
    );
    const sessionDriven = new Map(
      [...traced]
        .map(([name, n]) => [name, n - ((idleTrace.get(name) ?? 0) * tracedMs) / plan.idleWindowMs] as const)
        .filter(([, n]) => n > 0.05 * tracedTurns)
        .sort((a, b) => b[1] - a[1]),
    );
    const tracedPerTurn = (n: number) => Math.round((n / Math.max(1, tracedTurns)) * 100) / 100;
    const waits = result.waits_ms.flat();
    const answered = waits.filter((w): w is number => w !== null);
    const calls = callsBetween(before.redis, after.redis);
    const sessionSeconds = (plan.sessions * plan.clip.durationMs) / 1000;
    const perTurn = (x: number) => x / Math.max(1, answered.length);
    return {
      nodes: k,
      sessions: plan.sessions,
      session_seconds: sessionSeconds,
      turns_answered: answered.length,
      turns_missed: waits.length - answered.length,
      frames: plan.sessions * Math.ceil(plan.clip.durationMs / plan.frameMs),
      redis_commands: total(calls),
      redis_commands_per_turn: perTurn(total(calls)),
      redis_commands_per_session_s: total(calls) / sessionSeconds,
      redis_commands_per_turn_by_name: Object.fromEntries(
        Object.entries(calls).map(([name, n]) => [name, Math.round(perTurn(n) * 100) / 100]),
      ),
      redis_idle_commands_per_s: total(idleCalls) / (plan.idleWindowMs / 1000),
      idle_window_s: plan.idleWindowMs / 1000,
      redis_idle_by_name: idleCalls,
      traced_sessions: plan.traceSessions,
      client_commands_per_turn: tracedPerTurn([...sessionDriven.values()].reduce((a, b) => a + b, 0)),
      client_commands_per_turn_by_name: Object.fromEntries(
        [...sessionDriven].map(([name, n]) => [name, tracedPerTurn(n)]),
      ),
      parley_idle_cpu_ms_per_s: idleCpu / (plan.idleWindowMs / 1000),
      redis_cpu_ms_per_session_s: (after.redis.cpuMs - before.redis.cpuMs) / sessionSeconds,
      parley_cpu_ms_per_session_s: (after.parley - before.parley) / sessionSeconds,
      parley_session_cpu_ms_per_session_s:
        (after.parley - before.parley - (idleCpu * (after.at - before.at)) / plan.idleWindowMs) / sessionSeconds,
      step_wall_s: (after.at - before.at) / 1000,
      client_cpu_ms_per_session_s: (after.clients - before.clients) / sessionSeconds,
      user_wait: pcts(answered),
      parley_end_to_end: pcts(timings.map((t) => t['end_to_end_ms']!)),
      parley_share: pcts(timings.map(shareOf)),
      errors: result.errors,
    };
  } finally {
    await stopNodes(nodes);
  }
}
