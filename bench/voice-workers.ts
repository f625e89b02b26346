/**
 * Voice capacity at 1 and at PARLEY_WORKERS worker processes (issue 13, item 2): the same load as
 * bench/voice.ts (b) — sessions streaming the clip at real-time pace in 20 ms frames, VAD on every
 * frame, instant STT/TTS, a webhook answering at once — against Parley run as a cluster
 * (bench/voice/cluster-server.ts: the primary and its workers, each its own process). Both rows go
 * through the same harness, so 1 worker is the baseline of the same run.
 *
 * Frame lag is each worker's event-loop delay over the step (read from /health/metrics, whose
 * `processes` carry it per worker; the worst worker counts); Parley's CPU is the workers' CPU time
 * over the step (from the same figures). The load generator runs in its own process
 * (bench/lib/voice-load-side.ts) and its CPU is reported beside.
 *
 * Each step runs `VOICE_WORKERS_TRIES` times (default 3): this shared machine's speed drifts by
 * tens of percent between minutes, so one try says little about whether a count holds. A count
 * holds when every try stays within the limit; the ramp stops at the first that does not.
 *
 *   node --import tsx bench/voice-workers.ts      # VOICE_WORKERS=<k> (default: the cores), VOICE_WORKERS_SESSIONS=64,128,…, VOICE_WORKERS_TRIES=3
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TestRedis } from '../test/support/redis-server.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';
import { processCpuMs } from './lib/cpu-time.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import type { ChildMessage, LoadResult, SessionGrant } from './lib/voice-load-protocol.js';
import { summarize } from './lib/percentiles.js';
import { createBenchAgent, openSessions } from './lib/bench-api.js';
import { defaultVoiceBenchOptions, type VoiceBenchOptions } from './voice/options.js';
import { findTriggers } from './voice/triggers.js';

const clusterServer = fileURLToPath(new URL('./voice/cluster-server.ts', import.meta.url));
const voiceBench = fileURLToPath(new URL('./voice.ts', import.meta.url));

interface WorkersRow {
  workers: number;
  sessions: number;
  /** 1, 2, …: the step's tries, each a fresh set of sessions. */
  try: number;
  /** The worst worker's event-loop delay p99 over the step. */
  frame_lag_p99_ms: number;
  /** End-of-speech frame sent → `transcript` received. */
  transcript_p99_ms: number;
  missing_transcripts: number;
  parley_cores: number;
  client_cores: number;
  within_limit: boolean;
}

interface ProcessFigures {
  pid: number;
  cpu: { user_ms: number; system_ms: number };
  event_loop: { lag_p99_ms: number };
}

async function processFigures(url: string): Promise<ProcessFigures[]> {
  const res = await fetch(`${url}/health/metrics`);
  return ((await res.json()) as { processes: ProcessFigures[] }).processes;
}

const cpuOf = (figures: ProcessFigures[]) => figures.reduce((ms, p) => ms + p.cpu.user_ms + p.cpu.system_ms, 0);

async function step(
  url: string,
  agentToken: string,
  workers: number,
  n: number,
  attempt: number,
  options: VoiceBenchOptions,
  clients: VoiceClientProcess,
  triggers: number[],
): Promise<WorkersRow> {
  const grants: SessionGrant[] = await openSessions(url, agentToken, n, 32);
  clients.send({
    job: 'load',
    sessions: grants,
    frameMs: options.frameMs,
    durationMs: options.streamMs,
    staggerMs: options.staggerMs,
    triggerFrames: triggers,
    graceMs: options.graceMs,
  });
  const connected = await clients.next();
  if (!('connected' in connected)) throw new Error(`voice clients answered ${JSON.stringify(connected).slice(0, 200)}`);
  const before = {
    at: performance.now(),
    parley: cpuOf(await processFigures(url)),
    clients: processCpuMs(clients.pid),
  };
  const result = await clients.ask({ go: true }, (m: ChildMessage): m is LoadResult => 'job' in m && m.job === 'load');
  const after = await processFigures(url);
  const wall = performance.now() - before.at;
  await clients.ask({ close: true }, (m: ChildMessage): m is { closed: number } => 'closed' in m);
  const transcripts = summarize(result.transcript_latencies_ms);
  const lag = Math.max(...after.map((p) => p.event_loop.lag_p99_ms));
  return {
    workers,
    sessions: n,
    try: attempt,
    frame_lag_p99_ms: lag,
    transcript_p99_ms: round(transcripts.p99_ms, 1),
    missing_transcripts: result.missing_transcripts,
    parley_cores: round((cpuOf(after) - before.parley) / wall, 2),
    client_cores: round((processCpuMs(clients.pid) - before.clients) / wall, 2),
    within_limit: transcripts.count > 0 && result.missing_transcripts === 0 && lag <= options.lagLimitMs,
  };
}

export async function main(): Promise<void> {
  const workers = Number(process.env['VOICE_WORKERS'] ?? availableParallelism());
  const sessions = (process.env['VOICE_WORKERS_SESSIONS'] ?? '32,64,128,256').split(',').map(Number);
  const tries = Number(process.env['VOICE_WORKERS_TRIES'] ?? '3');
  // the load of bench/voice (b): the same stream length and stagger, so the tables compare
  const options: VoiceBenchOptions = { ...defaultVoiceBenchOptions };
  const redis = await TestRedis.start({ external: false, persistence: false });
  let webhook: ServerProcess | undefined;
  let clients: VoiceClientProcess | undefined;
  const rows: WorkersRow[] = [];
  try {
    webhook = await spawnServer({ name: 'voice-webhook', script: voiceBench, args: ['--serve', 'webhook'] });
    const triggers = (await findTriggers(options)).load;
    clients = await VoiceClientProcess.start();
    for (const k of [...new Set([1, workers])]) {
      const server = await spawnServer({
        name: `parley-${k}-workers`,
        script: clusterServer,
        args: [String(k)],
        env: { REDIS_URL: redis.url },
        readyTimeoutMs: 90_000,
      });
      try {
        await processFigures(server.url); // starts each worker's CPU and event-loop sample
        const agent = { name: 'Bench voice agent', webhook_url: `${webhook.url}/hook` };
        const agentToken = (await createBenchAgent(server.url, agent)).agent_token;
        ramp: for (const n of sessions) {
          for (let attempt = 1; attempt <= tries; attempt++) {
            const row = await step(server.url, agentToken, k, n, attempt, options, clients, triggers);
            rows.push(row);
            console.log(
              `  ${k} worker(s), ${n} sessions, try ${attempt}: frame lag p99 ${row.frame_lag_p99_ms} ms, Parley ${row.parley_cores} cores, clients ${row.client_cores} cores`,
            );
            if (!row.within_limit) break ramp;
          }
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await clients?.stop().catch(() => {}); // best effort: the child exits with this process anyway
    await webhook?.stop().catch(() => {}); // best effort: killed with this process anyway
    await redis.close();
  }
  /** A count holds when each of its tries stayed within the limit. */
  const holds = (k: number, n: number) => {
    const tried = rows.filter((r) => r.workers === k && r.sessions === n);
    return tried.length === tries && tried.every((r) => r.within_limit);
  };
  const best = (k: number) => Math.max(0, ...sessions.filter((n) => holds(k, n)));
  const markdown = [
    `Sessions within ${options.lagLimitMs} ms p99 frame lag in all ${tries} tries: ${best(1)} with 1 worker, ${best(workers)} with ${workers}.`,
    '',
    markdownTable(
      [
        'PARLEY_WORKERS',
        'sessions',
        'try',
        'frame lag p99 ms (worst worker)',
        'transcript p99 ms',
        'missing',
        'Parley cores',
        'client cores',
        'within',
      ],
      rows.map((r) => [
        r.workers,
        r.sessions,
        r.try,
        r.frame_lag_p99_ms,
        r.transcript_p99_ms,
        r.missing_transcripts,
        r.parley_cores,
        r.client_cores,
        r.within_limit ? 'yes' : 'no',
      ]),
      ['right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    ),
  ].join('\n');
  const json = { bench: 'voice-workers', machine: machineInfo(), options, tries, rows };
  await publishResults('voice-workers', json, markdown);
}

if (isMain(import.meta.url)) await main();
