/**
 * SDK chat in passthrough mode: what Parley adds on top of the operator's webhook.
 *
 * Each in its own process, against one redis-server:
 * - webhook: a minimal node:http server that reads the body and answers {"response":"ok"} at once
 *   (keep-alive), standing in for the operator;
 * - parley: `openParley` as main.ts wires it (log level silent, rate limit set out of reach), one
 *   passthrough agent pointing at the webhook, no webhook key and no events_url.
 * The same autocannon client POSTs /sdk/v1/chat to Parley (a new session per request: the full
 * first-message path) and, as the baseline, the same body straight to the webhook, in alternating
 * slices. Parley-added latency = chat percentile − webhook percentile.
 * Target (issue "SDK API"): under 2 ms added at p50.
 *
 *   node --import tsx bench/chat.ts                                   # bench/results/chat.{json,md}
 *   BENCH_CPU_PROF_DIR=/tmp/prof node --import tsx bench/chat.ts      # + V8 profile of Parley under load, summarised
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAdminKey } from './lib/bench-api.js';
import { serveBenchParley } from './lib/bench-parley.js';
import { summarizeProfile, type ProfileSummary } from './lib/cpu-profile.js';
import { WindowProfiler } from './lib/inspector-profile.js';
import { isMain } from './lib/is-main.js';
import { compareLoad, type LoadResult } from './lib/load.js';
import { traceRedis, type TracedCommand } from './lib/redis-trace.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';
import { TestRedis } from '../test/support/redis-server.js';
import { serveWebhook } from './lib/webhook-server.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { adminClient } from '../test/support/admin-client.js';
import { createAgent } from '../test/support/agents.js';

const targetAddedP50Ms = 2;
const thisFile = fileURLToPath(import.meta.url);
const message = 'What time do you open on Sunday? I would like to bring my bike in for a service.';

export interface ChatBenchOptions {
  /** Measured load per concurrency and target. */
  durationMs: number;
  /** Discarded load per target before each measurement. */
  warmupMs: number;
  /** Slices the measurement is cut into, alternating targets, so machine noise hits both alike. */
  rounds: number;
  connections: number[];
  /** When set, Parley profiles itself under load (not start-up) into `<dir>/chat-parley/`, and the report summarises it. */
  cpuProfDir: string | undefined;
}

export const defaultChatBenchOptions: ChatBenchOptions = {
  durationMs: 5_000,
  warmupMs: 1_000,
  rounds: 5,
  connections: [1, 64],
  cpuProfDir: process.env['BENCH_CPU_PROF_DIR'] || undefined,
};

type Side = Omit<LoadResult, 'connections'>;

export interface ChatRow {
  connections: number;
  parley: Side;
  webhook: Side;
  /** Parley p50 − webhook p50, ms. */
  added_p50_ms: number;
  /** Parley p99 − webhook p99, ms. */
  added_p99_ms: number;
  within_target: boolean;
}

export interface ChatReport {
  bench: 'chat';
  started_at: string;
  machine: ReturnType<typeof machineInfo>;
  options: Omit<ChatBenchOptions, 'cpuProfDir'>;
  session_mode: 'new session per request';
  request_bytes: number;
  target_added_p50_ms: number;
  /** Redis commands one chat request sends (MONITOR, outside any timing), in order. */
  redis_commands_per_chat: TracedCommand[];
  rows: ChatRow[];
  profile?: ProfileSummary | undefined;
}

export async function main(overrides: Partial<ChatBenchOptions> = {}): Promise<ChatReport> {
  const options = { ...defaultChatBenchOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const profileDir = options.cpuProfDir === undefined ? undefined : join(options.cpuProfDir, 'chat-parley');
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const redis = await TestRedis.start({ external: false, persistence: false });
  const servers: ServerProcess[] = [];
  try {
    const [webhook, parley] = await Promise.all([
      spawnServer({ name: 'chat-webhook', script: thisFile, args: ['--serve', 'webhook'] }),
      spawnServer({
        name: 'chat-parley',
        script: thisFile,
        args: ['--serve', 'parley', redis.url],
        env: {
          NODE_ENV: 'production',
          ...(profileDir === undefined ? {} : { BENCH_PROFILE_OUT: join(profileDir, 'parley.cpuprofile') }),
        },
      }),
    ]);
    servers.push(webhook, parley);
    const { agent_token: token } = await createAgent(adminClient(parley.url, benchAdminKey), {
      name: 'Bench chat agent',
      mode: 'passthrough',
      webhook_url: `${webhook.url}/hook`,
      system_prompt: 'You are a helpful voice assistant for a bicycle shop.',
    });
    const body = JSON.stringify({ agent_token: token, message });
    const headers = { 'content-type': 'application/json' };
    await assertAnswers(parley.url, body);
    const commands = await traceRedis(redis.url, () => assertAnswers(parley.url, body), /^parley:bull:/);
    // Profile the load only, not start-up and seeding: Parley starts sampling on SIGUSR2.
    if (profileDir !== undefined) process.kill(parley.pid, 'SIGUSR2');

    const rows: ChatRow[] = [];
    for (const connections of options.connections) {
      const measured = await compareLoad(
        {
          parley: { url: `${parley.url}/sdk/v1/chat`, method: 'POST', headers, body },
          webhook: { url: `${webhook.url}/hook`, method: 'POST', headers, body },
        },
        { connections, durationMs: options.durationMs, warmupMs: options.warmupMs, rounds: options.rounds },
      );
      const p = checked(measured.parley, 'parley');
      const w = checked(measured.webhook, 'webhook');
      const addedP50 = p.p50_ms - w.p50_ms;
      rows.push({
        connections,
        parley: side(p),
        webhook: side(w),
        added_p50_ms: round(addedP50, 3),
        added_p99_ms: round(p.p99_ms - w.p99_ms, 3),
        within_target: addedP50 < targetAddedP50Ms,
      });
    }

    await Promise.allSettled(servers.map((s) => s.stop()));
    const profile =
      options.cpuProfDir === undefined ? undefined : summarizeProfile(join(options.cpuProfDir, 'chat-parley'));
    const report: ChatReport = {
      bench: 'chat',
      started_at: startedAt,
      machine,
      options: {
        durationMs: options.durationMs,
        warmupMs: options.warmupMs,
        rounds: options.rounds,
        connections: options.connections,
      },
      session_mode: 'new session per request',
      request_bytes: Buffer.byteLength(body),
      target_added_p50_ms: targetAddedP50Ms,
      redis_commands_per_chat: commands,
      rows,
      ...(profile === undefined ? {} : { profile }),
    };
    const markdown = renderMarkdown(report);
    await publishResults('chat', report, markdown);
    return report;
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    await redis.close();
  }
}

function side(r: LoadResult): Side {
  const { connections: _connections, ...rest } = r;
  return {
    ...rest,
    rps: round(rest.rps, 1),
    mean_ms: round(rest.mean_ms, 3),
    p50_ms: round(rest.p50_ms, 3),
    p90_ms: round(rest.p90_ms, 3),
    p99_ms: round(rest.p99_ms, 3),
    max_ms: round(rest.max_ms, 3),
  };
}

/** A run with failures (429s, 502s) measures the wrong thing: stop rather than report it. */
function checked(r: LoadResult, target: string): LoadResult {
  if (r.non_2xx > 0 || r.errors > 0 || r.count === 0) {
    throw new Error(`${target}: ${r.count} ok, ${r.non_2xx} non-2xx, ${r.errors} connection errors`);
  }
  return r;
}

function renderMarkdown(report: ChatReport): string {
  const header = [
    'conns',
    'Parley req/s',
    'webhook req/s',
    'Parley p50 ms',
    'Parley p99 ms',
    'webhook p50 ms',
    'webhook p99 ms',
    'added p50 ms',
    'added p99 ms',
    `p50 < ${report.target_added_p50_ms} ms`,
  ];
  const rows = report.rows.map((r) => [
    r.connections,
    Math.round(r.parley.rps),
    Math.round(r.webhook.rps),
    r.parley.p50_ms.toFixed(2),
    r.parley.p99_ms.toFixed(2),
    r.webhook.p50_ms.toFixed(2),
    r.webhook.p99_ms.toFixed(2),
    r.added_p50_ms.toFixed(2),
    r.added_p99_ms.toFixed(2),
    r.within_target ? 'yes' : 'NO',
  ]);
  const m = report.machine;
  const lines = [
    '# SDK chat (passthrough): Parley vs calling the webhook directly',
    '',
    markdownTable(header, rows, [
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
    ]),
    '',
    `added = Parley percentile − webhook percentile (target: added p50 < ${report.target_added_p50_ms} ms). ` +
      `POST /sdk/v1/chat with a ${report.request_bytes}-byte body, ${report.session_mode}; the baseline POSTs the same body to the webhook. ` +
      `${report.options.durationMs / 1000} s per target and cell in ${report.options.rounds} alternating slices after ` +
      `${report.options.warmupMs / 1000} s warm-up each; autocannon, one request in flight per connection, keep-alive.`,
    `Redis per chat request: ${report.redis_commands_per_chat.length} commands (` +
      report.redis_commands_per_chat.map((c) => c.command).join(', ') +
      ').',
    `Machine: ${m.cpu_count} × ${m.cpu_model}, Node ${m.node}, load ${m.load_avg_1m} at start; ${report.started_at}.`,
  ];
  if (report.profile !== undefined) {
    lines.push(
      '',
      `## Where Parley's CPU time goes (self time, ${report.profile.busy_ms} ms busy)`,
      '',
      markdownTable(
        ['area', 'ms', '%'],
        report.profile.by_area.slice(0, 15).map((a) => [a.area, a.ms, a.share]),
      ),
      '',
      markdownTable(
        ['function', 'ms', '%'],
        report.profile.top_functions.slice(0, 15).map((f) => [f.fn, f.ms, f.share]),
      ),
    );
  }
  return lines.join('\n');
}

/** The bench only counts if Parley really answers through the webhook. */
async function assertAnswers(parleyUrl: string, body: string): Promise<void> {
  const res = await fetch(`${parleyUrl}/sdk/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answer = (await res.json()) as { response?: string; mode?: string };
  if (res.status !== 200 || answer.response !== 'ok' || answer.mode !== 'passthrough') {
    throw new Error(`chat did not answer through the webhook: ${res.status} ${JSON.stringify(answer)}`);
  }
}

// ---- the two servers, each run in a child process by `main` ----

async function serveParley(redisUrl: string): Promise<void> {
  const profileOut = process.env['BENCH_PROFILE_OUT'];
  const profiler = profileOut === undefined ? undefined : new WindowProfiler(profileOut);
  await serveBenchParley(redisUrl, {}, {}, async () => await profiler?.stop());
}

if (isMain(import.meta.url)) {
  const [flag, target, redisUrl] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else if (flag === '--serve' && target === 'parley' && redisUrl !== undefined) await serveParley(redisUrl);
  else await main();
}
