import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { clusterJson, clusterPrometheus, type ProcessSnapshot } from '../../src/metrics/cluster-metrics.js';
import { OperatorMetrics } from '../../src/metrics/operator-metrics.js';
import type { MetricsJson } from '../../src/metrics/process-metrics.js';

/**
 * Totals over worker processes: prom-client's AggregatorRegistry.aggregate over each worker's real
 * registry (OperatorMetrics' series, and a gauge about all replicas that must not be summed).
 */

async function worker(slot: number, requests: number[], live: number, rss: number): Promise<ProcessSnapshot> {
  const registry = new Registry();
  const operator = new OperatorMetrics(registry);
  new Gauge({ name: 'parley_live_sessions', help: 'all replicas', registers: [registry], aggregator: 'max' }).set(live);
  for (const seconds of requests) operator.httpRequest('GET', '/health', 200, seconds);
  operator.countVoiceSessionsWith(() => new Map([['websocket', slot]]));
  const json: MetricsJson = {
    uptime_s: 10 * slot,
    memory: { rss_bytes: rss, heap_used_bytes: 1, heap_total_bytes: 2, external_bytes: 3 },
    cpu: { user_ms: 100, system_ms: 10, percent: 20 },
    event_loop: { lag_p50_ms: slot, lag_p99_ms: 5 * slot, lag_max_ms: 9 * slot },
    redis: { ok: true, latency_ms: slot },
    sessions: { live },
    ...(await operator.json()),
  };
  return { worker: slot, pid: 1000 + slot, json, families: await registry.getMetricsAsJSON() };
}

describe('cluster metrics', () => {
  it('JSON: totals at the top (sums, worst lag, quantiles from summed buckets), then every process', async () => {
    const a = await worker(1, [0.002, 0.002, 0.002], 7, 100);
    const b = await worker(2, [0.2], 7, 50);
    const json = await clusterJson(b, [a, b], { configured: 2, running: 2, restarts: 1 });
    expect(json.http.requests).toBe(4);
    expect(json.http.by_status_class).toEqual({ '2xx': 4 });
    expect(json.http.latency.count).toBe(4);
    expect(json.http.latency.p50_ms).toBeLessThan(2.5); // three of four requests took 2 ms
    expect(json.voice_sessions.by_transport).toEqual({ websocket: 3 });
    expect(json.memory.rss_bytes).toBe(150);
    expect(json.cpu).toEqual({ user_ms: 200, system_ms: 20, percent: 40 });
    expect(json.event_loop).toEqual({ lag_p50_ms: 2, lag_p99_ms: 10, lag_max_ms: 18 });
    expect(json.uptime_s).toBe(20);
    expect(json.redis).toEqual({ ok: true, latency_ms: 2 }); // the answering process's probe
    expect(json.sessions.live).toBe(7);
    expect(json.workers).toEqual({ configured: 2, running: 2, restarts: 1 });
    expect(json.processes.map((p) => [p.worker, p.pid, p.http.requests])).toEqual([
      [1, 1001, 3],
      [2, 1002, 1],
    ]);
  });

  it('Prometheus: each series per worker with its label, the total without it, one HELP/TYPE per family', async () => {
    const { body } = await clusterPrometheus([await worker(1, [0.002], 7, 1), await worker(2, [0.002, 0.2], 7, 1)]);
    const sample = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(body)?.[1] ?? Number.NaN);
    const count = 'parley_http_request_duration_seconds_count{method="GET",route="/health",status="200"';
    expect(sample(`${count}}`)).toBe(3);
    expect(sample(`${count},worker="1"}`)).toBe(1);
    expect(sample(`${count},worker="2"}`)).toBe(2);
    expect(sample('parley_voice_sessions{transport="websocket"}')).toBe(3);
    expect(sample('parley_live_sessions')).toBe(7); // max, not 14
    expect(sample('parley_live_sessions{worker="2"}')).toBe(7);
    expect(body.match(/^# TYPE parley_http_request_duration_seconds histogram$/gm)).toHaveLength(1);
  });
});
