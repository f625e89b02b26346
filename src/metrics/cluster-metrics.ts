import { AggregatorRegistry, type Registry } from 'prom-client';
import { operatorJson } from './operator-metrics.js';
import type { MetricsJson } from './process-metrics.js';
import type { MetricFamily } from './quantiles.js';

/**
 * /health/metrics over several processes (PARLEY_WORKERS > 1): each worker's own figures, and
 * the totals. Totals are prom-client's `AggregatorRegistry.aggregate` over the workers' registries
 * (each metric summed, or by the `aggregator` it declares: the Redis gauges and the all-replica
 * live-session count are not sums), so the JSON totals and the Prometheus totals are one computation.
 */

/** One process's figures, as a worker sends them to the primary. */
export interface ProcessSnapshot {
  /** The worker's slot (1..PARLEY_WORKERS); null for a single-process Parley. */
  worker: number | null;
  pid: number;
  json: MetricsJson;
  /** Its registries, `getMetricsAsJSON()` (process metrics and Parley's). */
  families: MetricFamily[];
}

export interface WorkersSummary {
  /** PARLEY_WORKERS. */
  configured: number;
  /** Worker processes up and serving now. */
  running: number;
  /** Worker processes restarted after a crash since start. */
  restarts: number;
}

export interface ProcessMetricsJson extends MetricsJson {
  worker: number | null;
  pid: number;
}

export interface ClusterMetricsJson extends MetricsJson {
  workers: WorkersSummary;
  processes: ProcessMetricsJson[];
}

/** The primary did not collect the workers' figures in time (it is shutting down, or stuck): a 503. */
export class ClusterMetricsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterMetricsUnavailable';
  }
}

/** The label that tells workers' series apart in the Prometheus exposition. */
export const workerLabel = 'worker';

/** prom-client's sum (or declared aggregate) of the processes' families. */
function totalsRegistry(snapshots: ProcessSnapshot[]): Registry {
  return AggregatorRegistry.aggregate(snapshots.map((s) => s.families));
}

/**
 * The JSON: totals at the top (the shape of a single process's, so readers of one process keep
 * working), then `workers` and one entry per process. `local` is the process answering: its Redis
 * probe and live-session count (both about the shared Redis) stand for all.
 */
export async function clusterJson(
  local: ProcessSnapshot,
  snapshots: ProcessSnapshot[],
  workers: WorkersSummary,
): Promise<ClusterMetricsJson> {
  const all = snapshots.map((s) => s.json);
  const total = (pick: (j: MetricsJson) => number) => all.reduce((acc, j) => acc + pick(j), 0);
  const worst = (pick: (j: MetricsJson) => number) => Math.max(0, ...all.map(pick));
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    uptime_s: worst((j) => j.uptime_s),
    memory: {
      rss_bytes: total((j) => j.memory.rss_bytes),
      heap_used_bytes: total((j) => j.memory.heap_used_bytes),
      heap_total_bytes: total((j) => j.memory.heap_total_bytes),
      external_bytes: total((j) => j.memory.external_bytes),
    },
    cpu: {
      user_ms: round(total((j) => j.cpu.user_ms)),
      system_ms: round(total((j) => j.cpu.system_ms)),
      percent: round(total((j) => j.cpu.percent)),
    },
    event_loop: {
      lag_p50_ms: worst((j) => j.event_loop.lag_p50_ms),
      lag_p99_ms: worst((j) => j.event_loop.lag_p99_ms),
      lag_max_ms: worst((j) => j.event_loop.lag_max_ms),
    },
    redis: local.json.redis,
    sessions: local.json.sessions,
    ...(await operatorJson(totalsRegistry(snapshots))),
    workers,
    processes: snapshots.map((s) => ({ worker: s.worker, pid: s.pid, ...s.json })),
  };
}

/**
 * The Prometheus exposition: every series once per worker with `worker="<slot>"`, and the total
 * without that label (what a single process shows), all under one HELP/TYPE per family.
 */
export async function clusterPrometheus(snapshots: ProcessSnapshot[]): Promise<{ contentType: string; body: string }> {
  const totals = await totalsRegistry(snapshots).getMetricsAsJSON();
  const perWorker = snapshots.map((s) =>
    s.families.map((f) => ({
      ...f,
      // Each series is unique by its worker label, so any aggregator leaves it as it is; `first`
      // also keeps the ones whose totals are omitted (e.g. process_start_time_seconds).
      aggregator: 'first' as const,
      values: f.values.map((v) => ({ ...v, labels: { ...v.labels, [workerLabel]: String(s.worker ?? 0) } })),
    })),
  );
  const withTotals = totals.map((f) => ({ ...f, aggregator: 'first' as const }));
  const merged = AggregatorRegistry.aggregate([withTotals, ...perWorker]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
