import { describe, expect, it } from 'vitest';
import { isId } from '../../src/ids/id-format.js';
import { newId } from '../../src/ids/new-id.js';

describe('newId', () => {
  it('makes well-formed ids that sort in creation order within one millisecond', () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 2_000 }, () => newId('message', now));
    for (const id of ids) expect(isId('message', id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws every random character with about equal odds (the pooled crypto source)', () => {
    const counts = new Map<string, number>();
    newId('event', Date.now() + 120_000);
    // back-dated from there: a plain random ULID each time, so all 16 random characters are fresh
    for (let i = 0; i < 4_000; i++) {
      for (const c of newId('event', 1_000 + i).slice(-16)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(32);
    const expected = (4_000 * 16) / 32;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.15);
  });
});
