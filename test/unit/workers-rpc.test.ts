import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerClient, type WorkerClientOptions } from '../../src/workers/worker-client.js';
import type { EchoProtocol } from '../fixtures/workers/echo-worker.js';

const clients: WorkerClient<EchoProtocol>[] = [];

function client(options: Partial<WorkerClientOptions> = {}): WorkerClient<EchoProtocol> {
  const c = new WorkerClient<EchoProtocol>({
    module: { base: new URL('../fixtures/workers/', import.meta.url).href, name: 'echo-worker' },
    workerData: null,
    name: 'echo',
    ...options,
  });
  clients.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** Starting a worker from TypeScript source is slow on a busy machine. */
const slow = { timeout: 30_000 };

describe('WorkerClient and serveRpc', slow, () => {
  it('answers typed requests on another thread, in order', async () => {
    const c = client();
    const replies = await Promise.all(['a', 'b', 'c'].map((text) => c.call('echo', { text })));
    expect(replies).toEqual([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    expect(c.completed).toBe(3);
    expect(c.threadId).toBeGreaterThan(0);
  });

  it('close lets the call the thread is in return before the thread ends (never cuts a native call)', async () => {
    const c = client();
    await c.call('echo', { text: 'started' }); // the thread is up
    const file = join(mkdtempSync(join(tmpdir(), 'parley-worker-')), 'done');
    const blocking = c.call('block', { ms: 300, file });
    blocking.catch(() => undefined); // rejected by close below: the caller no longer waits
    await new Promise((r) => setTimeout(r, 50)); // the request reached the thread
    await c.close();
    expect(readFileSync(file, 'utf8')).toBe('done');
    await expect(blocking).rejects.toThrow(/closed/);
  });

  it('holds the process while the thread ends: a script awaiting close() goes on after it', () => {
    const script = fileURLToPath(new URL('../fixtures/workers/close-at-top-level.ts', import.meta.url));
    // before: the process ended inside close() with Node's code 13 (a top-level await never settled)
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('closed');
  });

  it('moves transferred reply buffers', async () => {
    const { data } = await client().call('bytes', { length: 4 });
    expect(Array.from(data)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('rejects a failed request with replyError, and keeps serving', async () => {
    const c = client({ replyError: (message) => new RangeError(`echo: ${message}`) });
    await expect(c.call('fail', { message: 'no' })).rejects.toThrow(new RangeError('echo: no'));
    expect(await c.call('echo', { text: 'still here' })).toEqual({ text: 'still here' });
  });

  it('with maxInFlight 1, never sends a request aborted while it waits', async () => {
    const c = client({ maxInFlight: 1 });
    const abort = new AbortController();
    const first = c.call('wait', { ms: 200 });
    const queued = c.call('echo', { text: 'never' }, { signal: abort.signal });
    expect(c.inFlight).toBe(1);
    abort.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    expect(await first).toEqual({ waited: 200 });
    expect(c.completed).toBe(1); // the aborted one never reached the worker
  });

  it('answers an abort of a running request at once and drops its reply', async () => {
    const c = client();
    const abort = new AbortController();
    const running = c.call('wait', { ms: 300 }, { signal: abort.signal });
    abort.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(c.inFlight).toBe(1);
    await expect.poll(() => c.completed, { timeout: 5_000 }).toBe(1);
    expect(c.inFlight).toBe(0);
  });

  it('fails pending and later requests when the worker exits, and tells the owner once', async () => {
    const stops: string[] = [];
    const c = client({
      stopError: (cause) => new Error(`stopped: ${cause.message}`),
      onStop: (cause) => stops.push(cause.message),
    });
    const exit = c.call('exit', { code: 3 });
    const pending = c.call('echo', { text: 'queued behind the exit' });
    await expect(exit).rejects.toThrow('stopped: echo worker exited with code 3');
    await expect(pending).rejects.toThrow('stopped: echo worker exited with code 3');
    await expect(c.call('echo', { text: 'x' })).rejects.toThrow('stopped: echo worker exited with code 3');
    expect(stops).toEqual(['echo worker exited with code 3']);
  });
});
