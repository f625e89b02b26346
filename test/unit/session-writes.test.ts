import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors/app-errors.js';
import { SessionWrites } from '../../src/session-writes/session-writes.js';

/** The per-session write queue of voice records: order, retries while failing, a bounded give-up. */

function queue(windowMs: number, givenUp: string[] = []): SessionWrites {
  return new SessionWrites({
    logger: pino({ level: 'silent' }),
    windowMs,
    firstDelayMs: 5,
    maxDelayMs: 20,
    onGiveUp: async (sessionId, what) => void givenUp.push(`${sessionId}:${what}`),
  });
}

describe('SessionWrites', () => {
  it("runs one session's writes in call order, retrying a failing one before the next", async () => {
    const writes = queue(5_000);
    const done: string[] = [];
    let failures = 3;
    const first = writes.run('s1', 'first', async () => {
      if (failures-- > 0) throw new Error('ECONNREFUSED');
      done.push('first');
      return 1;
    });
    const second = writes.run('s1', 'second', async () => void done.push('second'));
    expect(await first).toBe(1);
    await second;
    expect(done).toEqual(['first', 'second']);
    expect(writes.pending).toBe(0);
  });

  it('does not hold one session up behind another', async () => {
    const writes = queue(5_000);
    let release: () => void = () => undefined;
    const slow = writes.run('a', 'slow', () => new Promise<void>((resolve) => (release = resolve)));
    await writes.run('b', 'fast', async () => undefined);
    expect(writes.pending).toBe(1);
    release();
    await slow;
  });

  it('gives up after the window: resolves undefined, reports it, and the next write still runs', async () => {
    const givenUp: string[] = [];
    const writes = queue(60, givenUp);
    let attempts = 0;
    const lost = writes.run('s1', 'lost', async () => {
      attempts++;
      throw new Error('Socket closed unexpectedly');
    });
    const next = writes.run('s1', 'next', async () => 'stored');
    await expect(lost).resolves.toBeUndefined();
    await expect(next).resolves.toBe('stored');
    expect(attempts).toBeGreaterThan(1);
    expect(givenUp).toEqual(['s1:lost']);
  });

  it('does not retry what retrying cannot change (a 4xx such as a missing record)', async () => {
    const givenUp: string[] = [];
    const writes = queue(5_000, givenUp);
    let attempts = 0;
    const result = await writes.run('s1', 'gone', async () => {
      attempts++;
      throw new NotFoundError('session', 's1');
    });
    expect(result).toBeUndefined();
    expect(attempts).toBe(1);
    expect(givenUp).toEqual(['s1:gone']);
  });

  it('drain waits for queued writes, at most its timeout', async () => {
    const writes = queue(5_000);
    let stored = false;
    void writes.run('s1', 'w', async () => {
      await new Promise((r) => setTimeout(r, 20));
      stored = true;
    });
    await writes.drain(5_000);
    expect(stored).toBe(true);
    void writes.run('s2', 'stuck', () => new Promise<void>(() => undefined));
    await writes.drain(30); // returns although the write never settles
    expect(writes.pending).toBe(1);
  });
});
