import { describe, expect, it } from 'vitest';
import { bucketQuantile } from '../../src/metrics/quantiles.js';

describe('bucketQuantile (as Prometheus histogram_quantile)', () => {
  const buckets = (counts: [number, number][]) => counts.map(([le, count]) => ({ le, count }));

  it('interpolates linearly inside the bucket holding the rank', () => {
    // 10 observations: 4 ≤ 0.1, 8 ≤ 0.5, 10 ≤ 1.
    const b = buckets([
      [0.1, 4],
      [0.5, 8],
      [1, 10],
      [Infinity, 10],
    ]);
    expect(bucketQuantile(0.5, b)).toBeCloseTo(0.1 + 0.4 * (1 / 4), 10); // rank 5: 1 of 4 into (0.1, 0.5]
    expect(bucketQuantile(0.9, b)).toBeCloseTo(0.5 + 0.5 * (1 / 2), 10); // rank 9: 1 of 2 into (0.5, 1]
    expect(bucketQuantile(0.2, b)).toBeCloseTo(0.05, 10); // rank 2 in the first bucket, from 0
  });

  it('answers the highest finite bound for ranks in +Inf, and null without observations', () => {
    expect(
      bucketQuantile(
        0.9,
        buckets([
          [1, 1],
          [Infinity, 10],
        ]),
      ),
    ).toBe(1);
    expect(
      bucketQuantile(
        0.5,
        buckets([
          [1, 0],
          [Infinity, 0],
        ]),
      ),
    ).toBeNull();
  });
});
