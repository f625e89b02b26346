import { WebSocket } from 'ws';

/**
 * The live memory of other Node processes, read through their inspectors: each is started with
 * `--inspect=127.0.0.1:0` (NODE_OPTIONS reaches cluster workers too) and prints its debugger URL
 * on stderr. A full GC runs first (`HeapProfiler.collectGarbage`, twice), so the heap figure is
 * what is still reachable, not garbage waiting for the next collection.
 */

export interface ProcessMemory {
  pid: number;
  /** Main-thread JS heap in use after a full GC, bytes. */
  heap_used: number;
  /** Memory outside the JS heap that JS objects hold (buffers), bytes. */
  external: number;
  /** Resident set of the process, bytes. */
  rss: number;
}

/** Every debugger URL printed so far (`Debugger listening on ws://…`). */
export function inspectorUrls(stderr: string): string[] {
  return [...stderr.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].map((m) => m[1]!);
}

/** Collects garbage in the process behind `url` and reads its memory; null when it is gone. */
export async function settledMemoryAt(url: string, timeoutMs = 15_000): Promise<ProcessMemory | null> {
  const ws = new WebSocket(url);
  const opened = await new Promise<boolean>((resolve) => {
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
  });
  if (!opened) return null;
  let next = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${timeoutMs} ms`)), timeoutMs);
      pending.set(id, (result) => (clearTimeout(timer), resolve(result)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('HeapProfiler.collectGarbage');
    await send('HeapProfiler.collectGarbage');
    const evaluated = (await send('Runtime.evaluate', {
      expression: 'JSON.stringify({ pid: process.pid, ...process.memoryUsage() })',
      returnByValue: true,
    })) as { result: { value: string } };
    const m = JSON.parse(evaluated.result.value) as { pid: number; heapUsed: number; external: number; rss: number };
    return { pid: m.pid, heap_used: m.heapUsed, external: m.external, rss: m.rss };
  } finally {
    ws.close();
  }
}

/** The settled memory of every process in `pids` among those that printed a URL in `stderr`. */
export async function settledMemory(stderr: string, pids: number[]): Promise<ProcessMemory[]> {
  const all = await Promise.all(inspectorUrls(stderr).map((url) => settledMemoryAt(url).catch(() => null)));
  return all.filter((m): m is ProcessMemory => m !== null && pids.includes(m.pid)).sort((a, b) => a.pid - b.pid);
}
