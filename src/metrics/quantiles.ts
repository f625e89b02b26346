import type { Registry } from 'prom-client';

/** One metric family as a registry reports it (`getMetricsAsJSON()`, or a metric's `get()`). */
export type MetricFamily = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/** Count and quantiles of one histogram series, in ms (null while it has no observation). */
export interface LatencySummary {
  count: number;
  p50_ms: number | null;
  p90_ms: number | null;
}

interface Bucket {
  le: number;
  count: number;
}

/**
 * Quantile of cumulative buckets the way Prometheus' `histogram_quantile` computes it: linear
 * interpolation inside the bucket that holds the rank; the highest finite bound when the rank falls
 * in `+Inf`.
 */
export function bucketQuantile(q: number, buckets: Bucket[]): number | null {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const { le, count } of sorted) {
    if (count >= rank) {
      if (le === Infinity) return lowerBound;
      const inBucket = count - lowerCount;
      return inBucket === 0 ? le : lowerBound + ((le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * p50/p90 (in ms) of a seconds histogram, per value of `groupBy` (summed over the other labels;
 * without `groupBy`, one summary under `all`), from the same buckets the Prometheus exposition shows.
 */
export function summarize(histogram: MetricFamily | undefined, groupBy?: string): Record<string, LatencySummary> {
  const groups = new Map<string, Map<number, number>>();
  for (const v of histogram?.values ?? []) {
    const name = (v as { metricName?: string }).metricName;
    if (!name?.endsWith('_bucket')) continue;
    const labels = v.labels as Record<string, string | number>;
    const key = groupBy === undefined ? 'all' : String(labels[groupBy]);
    const le = labels['le'] === '+Inf' ? Infinity : Number(labels['le']);
    const buckets = groups.get(key) ?? new Map<number, number>();
    buckets.set(le, (buckets.get(le) ?? 0) + v.value);
    groups.set(key, buckets);
  }
  const out: Record<string, LatencySummary> = {};
  for (const [key, byLe] of groups) {
    const buckets = [...byLe].map(([le, count]) => ({ le, count }));
    const p50 = bucketQuantile(0.5, buckets);
    const p90 = bucketQuantile(0.9, buckets);
    out[key] = {
      count: byLe.get(Infinity) ?? 0,
      p50_ms: p50 === null ? null : round1(p50 * 1000),
      p90_ms: p90 === null ? null : round1(p90 * 1000),
    };
  }
  return out;
}
