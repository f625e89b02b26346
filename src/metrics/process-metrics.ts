import { withTimeout } from '../primitives/with-timeout.js';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import {
  clusterJson,
  clusterPrometheus,
  type ClusterMetricsJson,
  type ProcessSnapshot,
  type WorkersSummary,
} from './cluster-metrics.js';
import { OperatorMetrics, type OperatorMetricsJson } from './operator-metrics.js';
import type { Store } from '../store/store.js';

/**
 * System metrics for /health/metrics: a JSON summary and the Prometheus text exposition.
 * Process-wide metrics (CPU, memory, GC, event loop; prom-client's defaults) are collected once per
 * process in their own registry; each Metrics instance adds its own gauges (live sessions, Redis
 * latency, uptime) and the operator metrics (requests, turns, webhooks, events; OperatorMetrics).
 * Neither uses prom-client's global registry.
 */

export interface MetricsOptions {
  /** Time limit of the Redis round trip behind readiness and the Redis gauges. */
  redisTimeoutMs?: number;
}

/** Every process's snapshot (this one's included) and the worker counts: how a cluster worker sees the others. */
export type SnapshotGatherer = () => Promise<{ snapshots: ProcessSnapshot[]; workers: WorkersSummary }>;

export const defaultMetricsOptions = { redisTimeoutMs: 1_000 } as const;

export type RedisProbe = { ok: true; latency_ms: number } | { ok: false; latency_ms: null; problem: string };

export interface MetricsJson extends OperatorMetricsJson {
  uptime_s: number;
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number; external_bytes: number };
  cpu: { user_ms: number; system_ms: number; percent: number };
  event_loop: { lag_p50_ms: number; lag_p99_ms: number; lag_max_ms: number };
  redis: { ok: boolean; latency_ms: number | null };
  sessions: { live: number | null };
}

/** Sampling interval of the event-loop delay histogram; it is subtracted so idle lag reads ~0. */
const loopResolutionMs = 10;

let processRegistry: Registry | undefined;

/** prom-client's default process metrics, registered once per process (they install observers that live as long as it does). */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

const timedOut = (what: string, ms: number) => new Error(`${what} timed out after ${ms} ms`);

export class Metrics {
  private readonly startedAt = performance.now();
  private readonly registry = new Registry();
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: loopResolutionMs });
  private readonly redisTimeoutMs: number;
  private lastCpu = { usage: process.cpuUsage(), at: performance.now() };
  private readonly liveSessions: Gauge;
  private readonly redisLatency: Gauge;
  private readonly redisUp: Gauge;
  private stopped = false;
  private worker: number | null = null;
  private gather: SnapshotGatherer | undefined;
  /** Request, turn, webhook, event and voice-session figures, observed where they happen. */
  readonly operator: OperatorMetrics;

  constructor(
    readonly store: Store,
    options: MetricsOptions = {},
  ) {
    this.redisTimeoutMs = options.redisTimeoutMs ?? defaultMetricsOptions.redisTimeoutMs;
    this.loop.enable();
    processMetrics(); // start the process-wide collectors now, so the first scrape covers a real interval
    const registers = [this.registry];
    this.operator = new OperatorMetrics(this.registry);
    // `aggregator`: how the total over worker processes is formed (src/metrics/cluster-metrics.ts).
    this.liveSessions = new Gauge({
      name: 'parley_live_sessions',
      help: 'Voice sessions running in a Parley process (a live session lease), all replicas.',
      registers,
      aggregator: 'max',
    });
    this.redisLatency = new Gauge({
      name: 'parley_redis_latency_ms',
      help: 'Round-trip time of a Redis PING in ms; NaN when it failed.',
      registers,
      aggregator: 'max',
    });
    this.redisUp = new Gauge({
      name: 'parley_redis_up',
      help: '1 when the last Redis PING succeeded, else 0.',
      registers,
      aggregator: 'min',
    });
    const uptimeSeconds = () => this.uptimeSeconds();
    new Gauge({
      name: 'parley_uptime_seconds',
      help: 'Seconds since this Parley instance started.',
      registers,
      aggregator: 'max',
      collect() {
        this.set(uptimeSeconds());
      },
    });
  }

  /** Seconds since this instance started. */
  uptimeSeconds(): number {
    return round((performance.now() - this.startedAt) / 1000, 3);
  }

  /** One Redis PING with a time limit; never throws. Also updates the Redis gauges. */
  async probeRedis(): Promise<RedisProbe> {
    try {
      const latency = await withTimeout(this.store.ping(), this.redisTimeoutMs, () =>
        timedOut('redis ping', this.redisTimeoutMs),
      );
      this.redisUp.set(1);
      this.redisLatency.set(round(latency, 2));
      return { ok: true, latency_ms: round(latency, 2) };
    } catch (err) {
      this.redisUp.set(0);
      this.redisLatency.set(Number.NaN);
      return { ok: false, latency_ms: null, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Voice sessions running in a Parley process now, on all replicas: unexpired session leases
   * (a record stuck `active` whose process died does not count). Null when Redis cannot answer.
   */
  async countLiveSessions(): Promise<number | null> {
    try {
      const live = await withTimeout(this.store.leases.countLive(), this.redisTimeoutMs, () =>
        timedOut('live session count', this.redisTimeoutMs),
      );
      this.liveSessions.set(live);
      return live;
    } catch {
      // Reported as null (JSON) and NaN (Prometheus): an unreachable Redis is what the probe beside it shows.
      this.liveSessions.set(Number.NaN);
      return null;
    }
  }

  /**
   * Makes this instance one worker of a cluster: `worker` is its slot, `gather` fetches every
   * worker's snapshot (through the primary), so /health/metrics answers for all of them.
   */
  joinCluster(worker: number, gather: SnapshotGatherer): void {
    this.worker = worker;
    this.gather = gather;
  }

  /** The JSON: totals, `workers`, and one entry per process (this one alone outside a cluster). */
  async json(): Promise<ClusterMetricsJson> {
    if (this.gather === undefined) {
      const local = await this.snapshot();
      return clusterJson(local, [local], { configured: 1, running: 1, restarts: 0 });
    }
    // One sample per process per request: this process's own is among those gathered (a second
    // one here would cover only the last milliseconds of CPU and event-loop delay).
    const { snapshots, workers } = await this.gather();
    const local = snapshots.find((s) => s.pid === process.pid) ?? (await this.snapshot());
    return clusterJson(local, snapshots.length > 0 ? snapshots : [local], workers);
  }

  /** The Prometheus text exposition (process metrics plus Parley's), per worker and in total in a cluster. */
  async prometheus(): Promise<{ contentType: string; body: string }> {
    if (this.gather !== undefined) return clusterPrometheus((await this.gather()).snapshots);
    await Promise.all([this.probeRedis(), this.countLiveSessions()]);
    const merged = Registry.merge([processMetrics(), this.registry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }

  /** This process's figures: its JSON summary (CPU and event loop since the previous sample) and its series. */
  async snapshot(): Promise<ProcessSnapshot> {
    const json = await this.ownJson();
    const families = await Registry.merge([processMetrics(), this.registry]).getMetricsAsJSON();
    return { worker: this.worker, pid: process.pid, json, families };
  }

  private async ownJson(): Promise<MetricsJson> {
    const [redis, live, operator] = await Promise.all([
      this.probeRedis(),
      this.countLiveSessions(),
      this.operator.json(),
    ]);
    const memory = process.memoryUsage();
    return {
      uptime_s: this.uptimeSeconds(),
      memory: {
        rss_bytes: memory.rss,
        heap_used_bytes: memory.heapUsed,
        heap_total_bytes: memory.heapTotal,
        external_bytes: memory.external,
      },
      cpu: this.sampleCpu(),
      event_loop: this.sampleLoop(),
      redis: { ok: redis.ok, latency_ms: redis.latency_ms },
      sessions: { live },
      ...operator,
    };
  }

  /** Stops the event-loop histogram and drops this instance's gauges. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.loop.disable();
    this.registry.clear();
  }

  private sampleCpu(): MetricsJson['cpu'] {
    const now = performance.now();
    const total = process.cpuUsage();
    const delta = process.cpuUsage(this.lastCpu.usage);
    const elapsedMs = now - this.lastCpu.at;
    this.lastCpu = { usage: total, at: now };
    const percent = elapsedMs > 0 ? ((delta.user + delta.system) / 1000 / elapsedMs) * 100 : 0;
    return { user_ms: round(total.user / 1000), system_ms: round(total.system / 1000), percent: round(percent) };
  }

  private sampleLoop(): MetricsJson['event_loop'] {
    const h = this.loop;
    const lag = (ns: number) => round(Math.max(0, ns / 1e6 - loopResolutionMs), 2);
    const sample =
      h.count === 0
        ? { lag_p50_ms: 0, lag_p99_ms: 0, lag_max_ms: 0 }
        : { lag_p50_ms: lag(h.percentile(50)), lag_p99_ms: lag(h.percentile(99)), lag_max_ms: lag(h.max) };
    h.reset();
    return sample;
  }
}
