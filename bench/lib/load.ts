import autocannon from 'autocannon';
import { summarize, type LatencySummary } from './percentiles.js';

/** One HTTP request to repeat. */
export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** The server's cumulative CPU time in ms (e.g. `ServerProcess.cpuMs`), to report CPU per request. */
  serverCpuMs?: () => number;
}

export interface LoadShape {
  /** Concurrent keep-alive connections, each with one request in flight. */
  connections: number;
  /** Measured time (per target, in all rounds together). */
  durationMs: number;
  /** Load applied first and thrown away (JIT, connection pools, caches). 0 for none. */
  warmupMs?: number;
}

export interface LoadResult extends LatencySummary {
  connections: number;
  duration_ms: number;
  /** 2xx responses per second over the measured time. */
  rps: number;
  /** Responses received in the measured time (any status). */
  responses: number;
  non_2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** 2xx per second in each measured slice (one for `runLoad`, one per round for `compareLoad`). */
  round_rps: number[];
  /** Server CPU time per 2xx response, in µs; NaN without `serverCpuMs`. */
  server_cpu_us_per_request: number;
}

interface Raw {
  latencies: number[];
  responses: number;
  non2xx: number;
  errors: number;
  elapsedMs: number;
  serverCpuMs: number;
}

/**
 * Drives one target with autocannon for a fixed time and summarises it. Latencies come from each
 * response's own timing (autocannon's histogram rounds to whole ms, too coarse for sub-ms calls);
 * only 2xx responses count towards rps and the percentiles.
 */
export async function runLoad(options: LoadTarget & LoadShape): Promise<LoadResult> {
  if ((options.warmupMs ?? 0) > 0) await fire(options, options.connections, options.warmupMs!);
  return finish(options.connections, [await fire(options, options.connections, options.durationMs)]);
}

/**
 * Measures several targets under the same load, in `rounds` alternating slices (A B, B A, …) so
 * that drift in the machine's load (other processes, thermal) falls on all of them alike. Each
 * target gets `warmupMs` first and `durationMs` of measurement in total.
 */
export async function compareLoad<K extends string>(
  targets: Record<K, LoadTarget>,
  shape: LoadShape & { rounds?: number },
): Promise<Record<K, LoadResult>> {
  const names = Object.keys(targets) as K[];
  const rounds = Math.max(1, shape.rounds ?? 5);
  if ((shape.warmupMs ?? 0) > 0)
    for (const name of names) await fire(targets[name], shape.connections, shape.warmupMs!);
  const raws = new Map<K, Raw[]>(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order)
      raws.get(name)!.push(await fire(targets[name], shape.connections, shape.durationMs / rounds));
  }
  return Object.fromEntries(names.map((n) => [n, finish(shape.connections, raws.get(n)!)])) as Record<K, LoadResult>;
}

function finish(connections: number, raws: Raw[]): LoadResult {
  const latencies = raws.flatMap((r) => r.latencies);
  const elapsedMs = raws.reduce((t, r) => t + r.elapsedMs, 0);
  return {
    connections,
    duration_ms: Math.round(elapsedMs),
    rps: latencies.length / (elapsedMs / 1000),
    responses: raws.reduce((t, r) => t + r.responses, 0),
    non_2xx: raws.reduce((t, r) => t + r.non2xx, 0),
    errors: raws.reduce((t, r) => t + r.errors, 0),
    round_rps: raws.map((r) => r.latencies.length / (r.elapsedMs / 1000)),
    server_cpu_us_per_request: (raws.reduce((t, r) => t + r.serverCpuMs, 0) * 1000) / latencies.length,
    ...summarize(latencies),
  };
}

async function fire(target: LoadTarget, connections: number, durationMs: number): Promise<Raw> {
  const latencies: number[] = [];
  let responses = 0;
  let non2xx = 0;
  const cpuBefore = target.serverCpuMs?.() ?? Number.NaN;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections,
        duration: durationMs / 1000,
        method: target.method ?? 'GET',
        headers: target.headers ?? {},
        ...(target.body === undefined ? {} : { body: target.body }),
      },
      (err: unknown, res: autocannon.Result) =>
        err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      responses++;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
  const elapsedMs = performance.now() - started;
  const serverCpuMs = (target.serverCpuMs?.() ?? Number.NaN) - cpuBefore;
  return { latencies, responses, non2xx, errors: result.errors, elapsedMs, serverCpuMs };
}
