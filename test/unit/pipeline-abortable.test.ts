import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { abortable } from '../../src/pipeline/reply/abortable.js';

describe('abortable', () => {
  it('aborts a call still running when unsubscribed (barge-in), and nothing it does later arrives', async () => {
    let signal: AbortSignal | undefined;
    let finish: (v: string) => void = () => undefined;
    const seen: string[] = [];
    const sub = abortable((s) => {
      signal = s;
      return new Promise<string>((resolve) => (finish = resolve));
    }).subscribe((v) => seen.push(v));
    expect(signal?.aborted).toBe(false);
    sub.unsubscribe();
    expect(signal?.aborted).toBe(true);
    finish('late');
    await Promise.resolve();
    expect(seen).toEqual([]);
  });

  it('does not abort a call that has finished (a promise, or an async iterable run to its end)', async () => {
    let promiseSignal: AbortSignal | undefined;
    expect(await firstValueFrom(abortable((s) => ((promiseSignal = s), Promise.resolve(1))))).toBe(1);
    expect(promiseSignal?.aborted).toBe(false);

    let iterSignal: AbortSignal | undefined;
    async function* two(s: AbortSignal) {
      iterSignal = s;
      yield 'a';
      yield 'b';
    }
    expect(await lastValueFrom(abortable(two).pipe(toArray()))).toEqual(['a', 'b']);
    expect(iterSignal?.aborted).toBe(false);
  });

  it('passes a failure on as the error, without aborting', async () => {
    let signal: AbortSignal | undefined;
    await expect(
      firstValueFrom(abortable((s) => ((signal = s), Promise.reject(new Error('HTTP 500'))))),
    ).rejects.toThrow('HTTP 500');
    expect(signal?.aborted).toBe(false);
  });
});
