/**
 * Call recordings under live load, in one run against one Parley: N voice sessions over the
 * WebSocket transport speak a conversation at real-time pace (bench/voice (c)'s `talk` load
 * generator and clip: flite questions with pauses), once per phase, with the agent's `recording`
 * `off` (the baseline), `on` and `caller_only`, the phases in a mirrored order (off, on,
 * caller_only, caller_only, on, off) so that drift in a shared machine's load falls on every mode
 * alike: read the ratios, not the absolutes. Measured per phase: Parley's process CPU per
 * session-second, the user's wait (speech-end frame sent → `audio_start`) and Parley's share of
 * it (its stored timings), frame lag (Parley's event-loop delay), the recordings' bytes on disk
 * and /proc/self/io `write_bytes`, and the load generator's CPU.
 *
 * Processes as bench/voice.ts: Parley in this process (instant STT and TTS on the stand-in
 * preset, so its own share is what is measured), the voice clients forked
 * (bench/lib/voice-load-side.ts), the webhook (answers at once) and redis-server in their own.
 *
 *   node --import tsx bench/recording.ts     # writes bench/results/recording.{json,md}
 *   RECORDING_BENCH_QUICK=1 …                # about 2 minutes
 *   RECORDING_BENCH_SESSIONS=64 …            # sessions per phase
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Parley } from '../src/parley.js';
import type { RecordingMode } from '../src/schemas/recording-settings.js';
import { TestRedis } from '../test/support/redis-server.js';
import { createBenchAgent } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { instantSpeech } from './lib/instant-speech.js';
import { isMain } from './lib/is-main.js';
import { percentile } from './lib/percentiles.js';
import { writeRecordingClip } from './lib/recording-clip.js';
import { runPhase, type BenchAgent, type PhaseContext, type PhaseResult } from './lib/recording-phase.js';
import { renderMarkdown, summarizeModes, type RecordingReport } from './lib/recording-report.js';
import { machineInfo, round, publishResults } from './lib/report.js';
import { idleCpuMsPerS, processCpuMs } from './lib/cpu-time.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import { serveWebhook } from './lib/webhook-server.js';

const thisFile = fileURLToPath(import.meta.url);

export interface RecordingBenchOptions {
  /** Sessions per phase. */
  sessions: number;
  /** Questions of the talk clip each session speaks (1–6; 6 is about 36 s). */
  questions: number;
  /** The phases, in order. */
  order: RecordingMode[];
  frameMs: number;
  /** Session i starts `i / N × staggerMs` after the first. */
  staggerMs: number;
  /** After the last frame, how long to wait for outstanding answers. */
  graceMs: number;
}

export const defaultOptions: RecordingBenchOptions = {
  sessions: 48,
  questions: 6,
  order: ['off', 'on', 'caller_only', 'caller_only', 'on', 'off'],
  frameMs: 20,
  staggerMs: 5_000,
  graceMs: 4_000,
};
const quick: Partial<RecordingBenchOptions> = {
  sessions: 16,
  questions: 2,
  order: ['off', 'on', 'caller_only', 'on', 'off'],
  staggerMs: 3_000,
  graceMs: 3_000,
};

async function createAgent(url: string, webhookUrl: string, mode: RecordingMode): Promise<BenchAgent> {
  const settings = { name: `Bench recording ${mode}`, webhook_url: webhookUrl, recording: mode };
  const agent = await createBenchAgent(url, settings);
  return { id: agent.id, token: agent.agent_token, mode };
}

export async function main(overrides: Partial<RecordingBenchOptions> = {}): Promise<RecordingReport> {
  const options = { ...defaultOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-recording-bench-'));
  const redis = await TestRedis.start({ external: false, persistence: false });
  let webhook: ServerProcess | undefined;
  let parley: Parley | undefined;
  let clients: VoiceClientProcess | undefined;
  const clip = await writeRecordingClip(options.frameMs, options.questions);
  const warmClip = await writeRecordingClip(options.frameMs, 1);
  try {
    webhook = await spawnServer({ name: 'recording-webhook', script: thisFile, args: ['--serve', 'webhook'] });
    const config = await benchConfig(redis.url, { PARLEY_DATA_DIR: dataDir });
    let url: string;
    ({ parley, url } = await openBenchParley(config, { speech: instantSpeech() }));
    const hook = `${webhook.url}/hook`;
    const agents = {
      off: await createAgent(url, hook, 'off'),
      on: await createAgent(url, hook, 'on'),
      caller_only: await createAgent(url, hook, 'caller_only'),
    } satisfies Record<RecordingMode, BenchAgent>;
    clients = await VoiceClientProcess.start();
    const pid = clients.pid;
    const ctx: PhaseContext = {
      url,
      parley,
      clients,
      recordingsDir: join(dataDir, 'recordings'),
      clientCpuMs: () => processCpuMs(pid),
      idleCpuMsPerS: 0,
      frameMs: options.frameMs,
      staggerMs: options.staggerMs,
      graceMs: options.graceMs,
    };
    console.log('recording: warm-up (2 sessions per mode, one question, not counted)…');
    for (const agent of Object.values(agents))
      await runPhase(agent, 2, warmClip, { ...ctx, staggerMs: 500, graceMs: 2_000 });
    ctx.idleCpuMsPerS = await idleCpuMsPerS(3_000);

    const phases: PhaseResult[] = [];
    for (const [i, mode] of options.order.entries()) {
      const phase = await runPhase(agents[mode], options.sessions, clip, ctx);
      phases.push(phase);
      const waits = Float64Array.from(phase.waits_ms).sort();
      console.log(
        `  ${i + 1}/${options.order.length} ${mode} × ${phase.sessions}: Parley ${round(phase.parley_cpu_ms / phase.session_s, 2)} ms CPU / session-s ` +
          `(${phase.parley_cores} cores), wait p50 ${round(percentile(waits, 50), 1)} ms, ` +
          `frame lag p99 ${phase.frame_lag_ms.p99} ms, files ${phase.files} (${round(phase.file_bytes / 1e6, 1)} MB), ` +
          `write_bytes ${round(phase.write_bytes / 1e6, 1)} MB, unanswered ${phase.unanswered}`,
      );
      rmSync(join(ctx.recordingsDir, agents[mode].id), { recursive: true, force: true }); // keep the disk small
    }

    const report: RecordingReport = {
      bench: 'recording',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      options: { ...options },
      clip: { questions: clip.questions.length, duration_s: round(clip.durationMs / 1000, 1) },
      idle_cpu_ms_per_s: round(ctx.idleCpuMsPerS, 1),
      modes: summarizeModes(phases),
      phases: phases.map(({ waits_ms: _w, shares_ms: _s, ...rest }) => ({
        ...rest,
        parley_cpu_ms: round(rest.parley_cpu_ms, 0),
      })),
    };
    const markdown = renderMarkdown(report);
    await publishResults('recording', report, markdown);
    return report;
  } finally {
    await clients?.stop().catch(() => {}); // best effort: the child exits with this process anyway
    await parley?.close().catch(() => {}); // best effort at the end of a bench run
    await webhook?.stop().catch(() => {}); // best effort: killed with this process anyway
    await redis.close();
    clip.remove();
    warmClip.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function sessionsFromEnv(): Partial<RecordingBenchOptions> {
  const n = Number(process.env['RECORDING_BENCH_SESSIONS']);
  return Number.isInteger(n) && n > 0 ? { sessions: n } : {};
}

if (isMain(import.meta.url)) {
  const [flag, target] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else await main({ ...(process.env['RECORDING_BENCH_QUICK'] === '1' ? quick : {}), ...sessionsFromEnv() });
}
