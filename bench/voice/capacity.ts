import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Parley } from '../../src/parley.js';
import { summarize } from '../lib/percentiles.js';
import { round } from '../lib/report.js';
import { settledMemory } from '../lib/settled-memory.js';
import { threadCpuMs } from '../lib/cpu-time.js';
import type { VoiceClientProcess } from '../lib/voice-client-process.js';
import type { ChildMessage, LoadResult, SessionGrant } from '../lib/voice-load-protocol.js';
import { openSessions } from '../lib/bench-api.js';
import { loopResolutionMs, type VoiceBenchOptions } from './options.js';
import type { LoadReport, LoadRow, Percentiles } from './report.js';

export interface LoadContext {
  url: string;
  agentToken: string;
  parley: Parley;
  clients: VoiceClientProcess;
  triggers: number[];
  unloadedP50: number;
  /** The server's VAD silence floor (reported with the rows' skipped windows). */
  silenceFloorDbfs: number | 'off';
  cpu: { redis: () => number; webhook: () => number; clients: () => number };
}

/**
 * (b) Capacity: N = 1, 2, 4, … sessions each streaming the clip in a loop at real-time pace in
 * 20 ms frames, VAD on every frame. Frame lag = Parley's event-loop delay (the thread every frame
 * arrives on; the VAD's inference runs batched on its worker thread). Cross-check end to end: end-of-speech decision frame sent → `transcript`
 * received, against its unloaded median from (a). Stops at the first N whose p99 frame lag passes
 * the limit (confirmed by a repeat), or at the time budget. Also: CPU per session.
 */
export async function measureLoad(options: VoiceBenchOptions, ctx: LoadContext): Promise<LoadReport> {
  const idle = await idleParley(3_000);
  const started = performance.now();
  const rows: LoadRow[] = [];
  let best: number | null = null;
  let stopped = `ramp finished at ${options.sessions.at(-1)} sessions`;
  const stepMs = (n: number) => options.staggerMs + options.streamMs + options.graceMs + 1_000 + n * 15;
  const fits = (n: number) => performance.now() - started + stepMs(n) <= options.loadBudgetMs;
  for (const n of options.sessions) {
    if (!fits(n)) {
      stopped = `time budget (${options.loadBudgetMs / 1000} s) would be passed by the ${n}-session step`;
      break;
    }
    const step = async (attempt: number) => {
      const row = await loadStep(n, attempt, options, ctx, idle.cpu_ms_per_s);
      rows.push(row);
      console.log(
        `  ${n} sessions${attempt > 1 ? ' (repeat)' : ''}: frame lag p99 ${row.frame_lag_ms.p99_ms} ms, transcript lag p99 ${row.transcript_lag_p99_ms} ms, ` +
          `Parley ${row.cores.parley} cores (loop thread ${row.cores.parley_main}), clients ${row.cores.clients} cores`,
      );
      return row;
    };
    let row = await step(1);
    if (!row.within_limit && fits(n)) row = await step(2); // machine noise can fake a miss: confirm it
    if (!row.within_limit) {
      stopped =
        `p99 frame lag passed ${options.lagLimitMs} ms at ${n} sessions` + (row.attempt === 2 ? ' (twice)' : '');
      break;
    }
    best = n;
  }
  return {
    frame_ms: options.frameMs,
    stream_ms: options.streamMs,
    stagger_ms: options.staggerMs,
    lag_limit_ms: options.lagLimitMs,
    unloaded_transcript_p50_ms: round(ctx.unloadedP50, 3),
    vad_silence_floor_dbfs: ctx.silenceFloorDbfs,
    idle,
    rows,
    max_sessions_within_limit: best,
    stopped_because: stopped,
    cpu_ceiling: cpuCeiling(rows),
  };
}

function cpuCeiling(rows: LoadRow[]): LoadReport['cpu_ceiling'] {
  const last = rows.at(-1);
  if (last === undefined || !(last.parley_cpu_ms_per_session_s.main > 0) || !(last.parley_cpu_ms_per_session_s.all > 0))
    return null;
  return {
    from_sessions: last.sessions,
    event_loop_thread_full_at: Math.floor(1000 / last.parley_cpu_ms_per_session_s.main),
    two_cores_full_at: Math.floor(2000 / last.parley_cpu_ms_per_session_s.all),
  };
}

async function idleParley(ms: number): Promise<LoadReport['idle']> {
  const h = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = { at: performance.now(), all: process.cpuUsage(), main: threadCpuMs(process.pid) };
  h.enable();
  await sleep(ms);
  h.disable();
  const wallS = (performance.now() - before.at) / 1000;
  const all = process.cpuUsage(before.all);
  return {
    frame_lag_ms: loopPercentiles(h),
    cpu_ms_per_s: {
      all: round((all.user + all.system) / 1000 / wallS, 2),
      main: round((threadCpuMs(process.pid) - before.main) / wallS, 2),
    },
  };
}

function loopPercentiles(h: ReturnType<typeof monitorEventLoopDelay>): Percentiles {
  const ms = (ns: number) => round(Math.max(0, ns / 1e6 - loopResolutionMs), 2);
  return { p50_ms: ms(h.percentile(50)), p99_ms: ms(h.percentile(99)), max_ms: ms(h.max) };
}

async function loadStep(
  n: number,
  attempt: number,
  options: VoiceBenchOptions,
  ctx: LoadContext,
  idleCpu: { all: number; main: number },
): Promise<LoadRow> {
  const memBefore = settledMemory();
  const grants: SessionGrant[] = await openSessions(ctx.url, ctx.agentToken, n, 32);
  ctx.clients.send({
    job: 'load',
    sessions: grants,
    frameMs: options.frameMs,
    durationMs: options.streamMs,
    staggerMs: options.staggerMs,
    triggerFrames: ctx.triggers,
    graceMs: options.graceMs,
  });
  const connected = await ctx.clients.next();
  if (!('connected' in connected)) throw new Error(`voice clients answered ${JSON.stringify(connected).slice(0, 200)}`);
  // every session live and connected, no audio yet: what an idle live session holds
  const memIdle = settledMemory();
  const perIdleSession = (bytes: number) => round(bytes / n / 1024, 1);

  const loop = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = {
    at: performance.now(),
    parley: process.cpuUsage(),
    main: threadCpuMs(process.pid),
    redis: ctx.cpu.redis(),
    webhook: ctx.cpu.webhook(),
    clients: ctx.cpu.clients(),
  };
  loop.enable();
  const vadBefore = { ...ctx.parley.services.vad.stats };
  const result = await ctx.clients.ask(
    { go: true },
    (m: ChildMessage): m is LoadResult => 'job' in m && m.job === 'load',
  );
  const vadStats = ctx.parley.services.vad.stats;
  const vadBatches = vadStats.batches - vadBefore.batches;
  const vadWindows = vadStats.windows - vadBefore.windows;
  const vadSkipped = vadStats.skipped - vadBefore.skipped;
  loop.disable();
  const wall = performance.now() - before.at;
  const parleyCpu = process.cpuUsage(before.parley);
  const parleyMs = (parleyCpu.user + parleyCpu.system) / 1000;
  const mainMs = threadCpuMs(process.pid) - before.main;
  const cores = (ms: number) => round(ms / wall, 2);
  const sessionSeconds = (n * options.streamMs) / 1000;
  const perSession = (ms: number, idlePerS: number) =>
    round(Math.max(0, ms - (idlePerS * wall) / 1000) / sessionSeconds, 2);

  await ctx.clients.ask({ close: true }, (m: ChildMessage): m is { closed: number } => 'closed' in m);
  const deadline = performance.now() + 10_000;
  while (ctx.parley.services.supervisor.size > 0 && performance.now() < deadline) await sleep(20);

  const transcripts = summarize(result.transcript_latencies_ms);
  const frameLag = loopPercentiles(loop);
  return {
    sessions: n,
    attempt,
    utterances: transcripts.count,
    missing_transcripts: result.missing_transcripts,
    frame_lag_ms: frameLag,
    transcript_ms: {
      p50_ms: round(transcripts.p50_ms, 2),
      p99_ms: round(transcripts.p99_ms, 2),
      max_ms: round(transcripts.max_ms, 2),
    },
    transcript_lag_p99_ms: round(transcripts.p99_ms - ctx.unloadedP50, 2),
    vad_batches: {
      batches: vadBatches,
      windows: vadWindows,
      skipped: vadSkipped,
      skipped_pct: vadWindows + vadSkipped === 0 ? 0 : round((100 * vadSkipped) / (vadWindows + vadSkipped), 1),
      mean_batch: vadBatches === 0 ? 0 : round(vadWindows / vadBatches, 1),
      largest_so_far: vadStats.largestBatch,
    },
    parley_cpu_ms_per_session_s: { all: perSession(parleyMs, idleCpu.all), main: perSession(mainMs, idleCpu.main) },
    memory_per_idle_session_kb: {
      live: perIdleSession(memIdle.live - memBefore.live),
      rss: perIdleSession(memIdle.rss - memBefore.rss),
    },
    cores: {
      parley: cores(parleyMs),
      parley_main: cores(mainMs),
      clients: cores(ctx.cpu.clients() - before.clients),
      redis: cores(ctx.cpu.redis() - before.redis),
      webhook: cores(ctx.cpu.webhook() - before.webhook),
    },
    client_send_late_p99_ms: round(result.send_lateness_ms.p99, 2),
    client_loop_delay_p99_ms: round(result.client_loop_delay_ms.p99, 2),
    responses: result.responses,
    errors: [...new Set(result.errors)].slice(0, 5),
    within_limit: transcripts.count > 0 && result.missing_transcripts === 0 && frameLag.p99_ms <= options.lagLimitMs,
  };
}
