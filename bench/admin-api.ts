/**
 * Admin API read path: Parley against the least a Koa server can do with the same Redis data.
 *
 * Operations: GET /admin/v1/agents/:id and GET /admin/v1/agents?limit=20 (100 agents seeded),
 * each at 1 and 64 connections. Targets, each in its own process against one redis-server:
 * - parley: `openParley` as main.ts wires it, log level silent;
 * - baseline: bare Koa (no router, validation, auth or middleware) with the same `redis` client,
 *   answering the same JSON: GET of the record / ZRANGE + MGET of 20, JSON.parse, strip the key.
 * Target (issue "Control plane"): Parley's req/s within 1.5x of the baseline's.
 *
 *   node --import tsx bench/admin-api.ts            # writes bench/results/admin-api.{json,md}
 *   BENCH_CPU_PROF_DIR=/tmp/prof node --import tsx bench/admin-api.ts   # + V8 profiles of both servers
 */
import { deepStrictEqual } from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { admin, benchAdminKey } from './lib/bench-api.js';
import { isMain } from './lib/is-main.js';
import { compareLoad, type LoadResult } from './lib/load.js';
import { median } from './lib/percentiles.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';
import { TestRedis } from '../test/support/redis-server.js';
import { announceListening, spawnServer, type ServerProcess } from './lib/server-process.js';

const targetRatio = 1.5;
const thisFile = fileURLToPath(import.meta.url);

export interface AdminApiBenchOptions {
  /** Measured load per operation, concurrency and target. */
  durationMs: number;
  /** Discarded load per target before each measurement. */
  warmupMs: number;
  /** Slices the measurement is cut into, alternating targets, so machine noise hits both alike. */
  rounds: number;
  connections: number[];
  operations: Operation[];
  agents: number;
  /** When set, both servers write a V8 CPU profile here on exit. */
  cpuProfDir: string | undefined;
}

export const defaultAdminApiBenchOptions: AdminApiBenchOptions = {
  durationMs: 5_000,
  warmupMs: 1_000,
  rounds: 5,
  connections: [1, 64],
  operations: ['get-agent', 'list-agents'],
  agents: 100,
  cpuProfDir: process.env['BENCH_CPU_PROF_DIR'] || undefined,
};

export type Operation = 'get-agent' | 'list-agents';
type Side = Omit<LoadResult, 'connections'>;

export interface AdminApiRow {
  operation: Operation;
  path: string;
  connections: number;
  parley: Side;
  baseline: Side;
  /** baseline rps / Parley rps: 1 is parity, above 1.5 misses the target. */
  ratio: number;
  /** The same ratio per alternating round, median: less swayed by a burst of load on the machine. */
  ratio_median_of_rounds: number;
  within_target: boolean;
  /** Parley's server CPU per request ÷ the baseline's: the overhead, little swayed by machine load. */
  cpu_ratio: number;
}

export interface AdminApiReport {
  bench: 'admin-api';
  started_at: string;
  machine: ReturnType<typeof machineInfo>;
  options: {
    duration_ms: number;
    warmup_ms: number;
    rounds: number;
    connections: number[];
    operations: Operation[];
    agents: number;
  };
  target_ratio: number;
  rows: AdminApiRow[];
}

export async function main(overrides: Partial<AdminApiBenchOptions> = {}): Promise<AdminApiReport> {
  const options = { ...defaultAdminApiBenchOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start({ external: false, persistence: false });
  const servers: ServerProcess[] = [];
  try {
    const serve = async (target: 'parley' | 'baseline') => {
      const server = await spawnServer({
        name: `admin-api-${target}`,
        script: thisFile,
        args: ['--serve', target, redis.url],
        env: { NODE_ENV: 'production' },
        cpuProfDir: options.cpuProfDir,
      });
      servers.push(server);
      return server;
    };
    // allSettled: when one fails to start, the other is still registered in `servers` and stopped below.
    const started = await Promise.allSettled([serve('parley'), serve('baseline')]);
    const [parley, baseline] = started.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    }) as [ServerProcess, ServerProcess];
    const ids = await seedAgents(parley.url, options.agents);
    const pathOf: Record<Operation, string> = {
      'get-agent': `/admin/v1/agents/${ids[Math.floor(ids.length / 2)]!}`,
      'list-agents': '/admin/v1/agents?limit=20',
    };
    const operations = options.operations.map((operation) => ({ operation, path: pathOf[operation] }));
    for (const op of operations) await assertSameAnswer(parley.url, baseline.url, op.path);

    const rows: AdminApiRow[] = [];
    for (const op of operations) {
      for (const connections of options.connections) {
        const headers = { 'x-api-key': benchAdminKey };
        const measured = await compareLoad(
          {
            parley: { url: parley.url + op.path, headers, serverCpuMs: parley.cpuMs },
            baseline: { url: baseline.url + op.path, headers, serverCpuMs: baseline.cpuMs },
          },
          { connections, durationMs: options.durationMs, warmupMs: options.warmupMs, rounds: options.rounds },
        );
        const p = checked(measured.parley, 'parley', op.path);
        const b = checked(measured.baseline, 'baseline', op.path);
        const ratio = b.rps / p.rps;
        rows.push({
          operation: op.operation,
          path: op.path.replace(/agt_\w+/, ':id'),
          connections,
          parley: side(p),
          baseline: side(b),
          ratio: round(ratio, 3),
          ratio_median_of_rounds: round(median(b.round_rps.map((rps, i) => rps / p.round_rps[i]!)), 3),
          within_target: ratio <= targetRatio,
          cpu_ratio: round(p.server_cpu_us_per_request / b.server_cpu_us_per_request, 3),
        });
      }
    }

    const report: AdminApiReport = {
      bench: 'admin-api',
      started_at: startedAt,
      machine,
      options: {
        duration_ms: options.durationMs,
        warmup_ms: options.warmupMs,
        rounds: options.rounds,
        connections: options.connections,
        operations: options.operations,
        agents: options.agents,
      },
      target_ratio: targetRatio,
      rows,
    };
    const markdown = renderMarkdown(report);
    await publishResults('admin-api', report, markdown);
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
    round_rps: rest.round_rps.map((v) => round(v, 1)),
    mean_ms: round(rest.mean_ms, 3),
    p50_ms: round(rest.p50_ms, 3),
    p90_ms: round(rest.p90_ms, 3),
    p99_ms: round(rest.p99_ms, 3),
    max_ms: round(rest.max_ms, 3),
    server_cpu_us_per_request: round(rest.server_cpu_us_per_request, 1),
  };
}

/** A run with failures measures the wrong thing: stop rather than report it. */
function checked(r: LoadResult, target: string, path: string): LoadResult {
  if (r.non_2xx > 0 || r.errors > 0 || r.count === 0) {
    throw new Error(`${target} ${path}: ${r.count} ok, ${r.non_2xx} non-2xx, ${r.errors} connection errors`);
  }
  return r;
}

function renderMarkdown(report: AdminApiReport): string {
  const ms = (side: Side) => `${side.p50_ms.toFixed(2)} / ${side.p99_ms.toFixed(2)}`;
  const header = [
    'operation',
    'conns',
    'Parley req/s',
    'baseline req/s',
    'ratio',
    `≤ ${report.target_ratio}x`,
    'Parley p50 / p99 ms',
    'baseline p50 / p99 ms',
    'server CPU µs/req Parley / baseline',
    'CPU ratio',
  ];
  const rows = report.rows.map((r) => [
    r.operation,
    r.connections,
    Math.round(r.parley.rps),
    Math.round(r.baseline.rps),
    `${r.ratio.toFixed(2)} (rounds: ${r.ratio_median_of_rounds.toFixed(2)})`,
    r.within_target ? 'yes' : 'NO',
    ms(r.parley),
    ms(r.baseline),
    `${Math.round(r.parley.server_cpu_us_per_request)} / ${Math.round(r.baseline.server_cpu_us_per_request)}`,
    r.cpu_ratio.toFixed(2),
  ]);
  const m = report.machine;
  const o = report.options;
  return [
    '# Admin API: Parley vs bare Koa on the same Redis',
    '',
    markdownTable(header, rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
      'left',
      'right',
      'right',
      'right',
      'right',
    ]),
    '',
    `ratio = baseline req/s ÷ Parley req/s (target ≤ ${report.target_ratio}); in brackets the median of the per-round ratios. ` +
      `CPU ratio = Parley's server CPU time per request ÷ the baseline's, the least load-sensitive measure of overhead.`,
    `${o.duration_ms / 1000} s per target and cell in ${o.rounds} alternating slices, after ${o.warmup_ms / 1000} s warm-up each; ` +
      `${o.agents} agents seeded; autocannon, one request in flight per connection; each server its own process.`,
    `Machine: ${m.cpu_count} × ${m.cpu_model}, Node ${m.node}, load average ${m.load_avg_1m} at start; ${report.started_at}.`,
  ].join('\n');
}

/** Creates agents through Parley's own API (every third with a webhook key); returns their ids oldest first. */
async function seedAgents(parleyUrl: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const passthrough = i % 2 === 1;
    const body = (await admin(parleyUrl, 'POST', '/admin/v1/agents', {
      name: `Bench agent ${i}`,
      description: `Answers questions about order ${i}.`,
      mode: passthrough ? 'passthrough' : 'enhanced',
      system_prompt: 'You are a helpful voice assistant for a bicycle shop. '.repeat(6).trim(),
      greeting: 'Hello! How can I help?',
      ...(passthrough ? { webhook_url: `https://hooks.example.com/agents/${i}` } : {}),
      ...(i % 3 === 0 ? { webhook_api_key: `whk_${i}_secret` } : {}),
      metadata: { team: 'support', tier: i % 4, beta: i % 5 === 0 },
    })) as { id: string };
    ids.push(body.id);
  }
  return ids;
}

/** The baseline only counts if it answers what Parley answers. */
async function assertSameAnswer(parleyUrl: string, baselineUrl: string, path: string): Promise<void> {
  const get = async (base: string) => {
    const res = await fetch(base + path, { headers: { 'x-api-key': benchAdminKey } });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  deepStrictEqual(await get(baselineUrl), await get(parleyUrl), `baseline and Parley disagree on ${path}`);
}

// ---- the two servers, each run in a child process by `main` (imported there only, so the
// ---- process running autocannon stays small) ----

async function serveParley(redisUrl: string): Promise<void> {
  const { serveBenchParley } = await import('./lib/bench-parley.js');
  await serveBenchParley(redisUrl);
}

interface StoredAgentJson {
  webhook_api_key: string | null;
  [field: string]: unknown;
}

/** Koa and the redis client only: the floor for serving these two reads. */
async function serveBaseline(redisUrl: string): Promise<void> {
  const [{ default: Koa }, { Keys }, { connectRedis }] = await Promise.all([
    import('koa'),
    import('../src/store/keys.js'),
    import('../src/store/redis.js'),
  ]);
  const redis = await connectRedis({ url: redisUrl });
  const keys = new Keys('parley');
  const toPublic = (raw: string) => {
    const { webhook_api_key, ...rest } = JSON.parse(raw) as StoredAgentJson;
    return { ...rest, has_webhook_api_key: webhook_api_key !== null };
  };
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/admin/v1/agents') {
      const limit = 20;
      const entries = await redis.zRangeWithScores(keys.agentIndex(), 0, limit, { REV: true });
      const page = entries.slice(0, limit);
      const raws = page.length === 0 ? [] : await redis.mGet(page.map((e) => keys.agent(e.value)));
      const last = page[page.length - 1];
      ctx.body = {
        data: raws.flatMap((raw) => (raw === null ? [] : [toPublic(raw)])),
        next_cursor:
          entries.length > limit && last !== undefined
            ? Buffer.from(`${last.score}:${last.value}`).toString('base64url')
            : null,
      };
      return;
    }
    const id = ctx.path.startsWith('/admin/v1/agents/') ? ctx.path.slice('/admin/v1/agents/'.length) : '';
    const raw = id === '' ? null : await redis.get(keys.agent(id));
    if (raw === null) {
      ctx.status = 404;
      ctx.body = { error: { code: 'not_found', message: 'not found' } };
      return;
    }
    ctx.body = toPublic(raw);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  announceListening(typeof address === 'object' && address !== null ? address.port : 0, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    redis.destroy();
  });
}

if (isMain(import.meta.url)) {
  const [flag, target, redisUrl] = process.argv.slice(2);
  if (flag === '--serve' && redisUrl !== undefined) {
    await (target === 'parley' ? serveParley(redisUrl) : serveBaseline(redisUrl));
  } else {
    await main();
  }
}
