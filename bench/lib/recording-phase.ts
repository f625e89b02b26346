/**
 * One phase of bench/recording.ts: N sessions of one agent (recording off, on or caller_only)
 * speak the talk clip once at real-time pace over the WebSocket transport (bench/voice (c)'s
 * `talk` job in the client process), while this process (Parley's) measures its CPU, event-loop
 * delay (frame lag) and bytes written to disk (/proc/self/io); then the user's waits, Parley's
 * stored timings, and the recordings the sessions left on disk.
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Parley } from '../../src/parley.js';
import type { RecordingMode } from '../../src/schemas/recording-settings.js';
import type { TalkClip } from '../voice/talk-clip.js';
import { conversationOf, openSessions, shareOf } from './bench-api.js';
import { loopResolutionMs } from '../voice/options.js';
import { round } from './report.js';
import type { VoiceClientProcess } from './voice-client-process.js';
import type { ChildMessage, TalkResult } from './voice-load-protocol.js';

export interface PhaseContext {
  url: string;
  parley: Parley;
  clients: VoiceClientProcess;
  /** `<PARLEY_DATA_DIR>/recordings` */
  recordingsDir: string;
  clientCpuMs: () => number;
  /** Parley's CPU per wall second with no session, taken out of the per-session figure. */
  idleCpuMsPerS: number;
  frameMs: number;
  staggerMs: number;
  graceMs: number;
}

export interface BenchAgent {
  id: string;
  token: string;
  mode: RecordingMode;
}

/** One phase's raw measurements (the waits and shares are pooled per mode by the report). */
export interface PhaseResult {
  mode: RecordingMode;
  sessions: number;
  /** Sessions × clip length: the audio the callers streamed. */
  session_s: number;
  wall_s: number;
  waits_ms: number[];
  unanswered: number;
  /** Parley's share of each answered turn: end_to_end − endpointing − STT − webhook (its stored timings). */
  shares_ms: number[];
  frame_lag_ms: { p50: number; p99: number; max: number };
  /** Parley's CPU (all its threads) over the phase, less its idle rate. */
  parley_cpu_ms: number;
  parley_cores: number;
  client_cpu_ms: number;
  client_send_late_p99_ms: number;
  /** The phase's recordings: how many, their bytes, and the audio they hold (s). */
  files: number;
  file_bytes: number;
  recorded_s: number;
  /** /proc/self/io write_bytes over the phase (pages dirtied towards the disk); NaN without /proc. */
  write_bytes: number;
  errors: string[];
}

export async function runPhase(agent: BenchAgent, n: number, clip: TalkClip, ctx: PhaseContext): Promise<PhaseResult> {
  const grants = await openSessions(ctx.url, agent.token, n, 16);
  const loop = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = { at: performance.now(), cpu: process.cpuUsage(), clients: ctx.clientCpuMs(), io: writeBytes() };
  loop.enable();
  const result = await ctx.clients.ask(
    {
      job: 'talk',
      sessions: grants,
      frameMs: ctx.frameMs,
      clipPath: clip.path,
      speechEndFrames: clip.speechEndFrames,
      staggerMs: ctx.staggerMs,
      graceMs: ctx.graceMs,
    },
    (m: ChildMessage): m is TalkResult => 'job' in m && m.job === 'talk',
  );
  // the talk job hangs up every session; a recording is complete before its session has ended
  const deadline = performance.now() + 10_000;
  while (ctx.parley.services.supervisor.size > 0 && performance.now() < deadline) await sleep(20);
  loop.disable();
  const wall = performance.now() - before.at;
  const used = process.cpuUsage(before.cpu);
  const parleyMs = (used.user + used.system) / 1000;
  const written = writeBytes() - before.io;
  const clientMs = ctx.clientCpuMs() - before.clients;

  const conversations = await conversationsOf(ctx.url, grants);
  const files = await recordingsOf(
    ctx.recordingsDir,
    agent,
    conversations.map((c) => c.id),
  );
  const waits = result.waits_ms.flat();
  const lag = (ns: number) => round(Math.max(0, ns / 1e6 - loopResolutionMs), 2);
  return {
    mode: agent.mode,
    sessions: n,
    session_s: (n * clip.durationMs) / 1000,
    wall_s: round(wall / 1000, 1),
    waits_ms: waits.filter((w): w is number => w !== null),
    unanswered: waits.filter((w) => w === null).length,
    shares_ms: conversations.flatMap((c) => c.shares),
    frame_lag_ms: { p50: lag(loop.percentile(50)), p99: lag(loop.percentile(99)), max: lag(loop.max) },
    parley_cpu_ms: Math.max(0, parleyMs - (ctx.idleCpuMsPerS * wall) / 1000),
    parley_cores: round(parleyMs / wall, 2),
    client_cpu_ms: clientMs,
    client_send_late_p99_ms: round(result.send_lateness_ms.p99, 2),
    files: files.count,
    file_bytes: files.bytes,
    recorded_s: round(files.audioS, 1),
    write_bytes: written,
    errors: [...new Set(result.errors)].slice(0, 5),
  };
}

/** Bytes this process has caused to be written to storage so far (/proc/self/io `write_bytes`). */
export function writeBytes(): number {
  try {
    const io = readFileSync('/proc/self/io', 'utf8');
    return Number(/^write_bytes: (\d+)$/m.exec(io)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** Each session's conversation id and Parley's share of its answered audio turns. */
async function conversationsOf(
  url: string,
  grants: { session_id: string }[],
): Promise<{ id: string; shares: number[] }[]> {
  const out: { id: string; shares: number[] }[] = [];
  for (const grant of grants) {
    const { id, messages } = await conversationOf(url, grant.session_id);
    const shares = messages
      .filter((m) => m.role === 'agent' && m.status === 'complete' && m.timings?.['endpointing_ms'] !== undefined)
      .map((m) => shareOf(m.timings!));
    out.push({ id, shares });
  }
  return out;
}

/** The recordings of these conversations: `<dir>/<agent id>/<conversation id>.wav` (PCM16 at 16 kHz). */
async function recordingsOf(
  dir: string,
  agent: BenchAgent,
  conversationIds: string[],
): Promise<{ count: number; bytes: number; audioS: number }> {
  const bytesPerS = 16_000 * 2 * (agent.mode === 'on' ? 2 : 1);
  let count = 0;
  let bytes = 0;
  let audioS = 0;
  for (const id of conversationIds) {
    const size = await stat(join(dir, agent.id, `${id}.wav`)).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) continue;
    count++;
    bytes += size;
    audioS += (size - 44) / bytesPerS;
  }
  return { count, bytes, audioS };
}
