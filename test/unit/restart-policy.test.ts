import { describe, expect, it } from 'vitest';
import { RestartPolicy } from '../../src/boot/cluster/restart-policy.js';

describe('RestartPolicy (crashed worker processes)', () => {
  it('backs off exponentially over the crashes of the last minute, capped', () => {
    let now = 0;
    const policy = new RestartPolicy({ baseMs: 500, maxMs: 4_000, maxPerMinute: 10 }, () => now);
    const delays = [1, 2, 3, 4, 5].map(() => {
      now += 1_000;
      return policy.crashed();
    });
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
  });

  it('starts over once a minute has passed without a crash', () => {
    let now = 0;
    const policy = new RestartPolicy({ baseMs: 500, maxMs: 10_000, maxPerMinute: 10 }, () => now);
    policy.crashed();
    now += 1_000;
    expect(policy.crashed()).toBe(1_000);
    now += 61_000;
    expect(policy.recent).toBe(0);
    expect(policy.crashed()).toBe(500);
  });

  it('stops restarting past maxPerMinute crashes within a minute', () => {
    let now = 0;
    const policy = new RestartPolicy({ baseMs: 1, maxMs: 10, maxPerMinute: 3 }, () => now);
    const delays = [1, 2, 3, 4].map(() => {
      now += 5_000;
      return policy.crashed();
    });
    expect(delays).toEqual([1, 2, 4, undefined]);
    expect(policy.recent).toBe(4);
  });
});
