/**
 * bench/scale.ts's Parley nodes and its Redis figures. Each node is its own process
 * (bench/lib/scale-node.ts: src/main.ts with the instant speech stand-ins) on the shared Redis,
 * with PARLEY_WORKERS=1 and its own port, on test/support/main-process.ts's clean Parley
 * environment plus the bench's variables.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { cleanParleyEnv } from '../../test/support/main-process.js';
import { freePort } from '../../test/support/redis-server.js';
import { benchAdminKey } from './bench-api.js';
import { processCpuMs } from './cpu-time.js';
import { testModelsDir } from '../../test/support/test-models.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const nodeScript = fileURLToPath(new URL('./scale-node.ts', import.meta.url));

export interface ParleyNode {
  index: number;
  url: string;
  pid: number;
  child: ChildProcess;
  /** performance.now() when it answered /health/live. */
  readyAt: number;
  exited: Promise<void>;
}

async function startNode(index: number, redisUrl: string, env: Record<string, string>): Promise<ParleyNode> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `parley-scale-node-${index}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', nodeScript], {
    cwd: repoRoot,
    env: {
      ...cleanParleyEnv(),
      NODE_ENV: 'production',
      PARLEY_LOG_LEVEL: 'warn',
      PARLEY_HOST: '127.0.0.1',
      PORT: String(port),
      PARLEY_WORKERS: '1',
      PARLEY_ADMIN_API_KEY: benchAdminKey,
      PARLEY_DATA_DIR: dataDir,
      REDIS_URL: redisUrl,
      MODELS_DIR: await testModelsDir(),
      PARLEY_RATE_LIMIT_RPM: '1000000',
      PARLEY_RATE_LIMIT_BURST: '1000000',
      PARLEY_MAX_SESSIONS: '100000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit); // never outlive the bench
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', killOnExit);
      rmSync(dataDir, { recursive: true, force: true });
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`node ${index} exited:\n${stderr}`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`node ${index} did not start:\n${stderr}`);
    }
    const live = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await sleep(100);
  }
  return { index, url, pid: child.pid!, child, readyAt: performance.now(), exited };
}

/** `count` nodes on `redisUrl`, started one after the other (a cold start takes both cores). */
export async function startNodes(count: number, redisUrl: string, env: Record<string, string> = {}) {
  const nodes: ParleyNode[] = [];
  try {
    for (let i = 0; i < count; i++) nodes.push(await startNode(i, redisUrl, env));
  } catch (err) {
    await stopNodes(nodes);
    throw err;
  }
  return nodes;
}

/** SIGTERM (a graceful drain), SIGKILL after 20 s. */
export async function stopNodes(nodes: ParleyNode[]): Promise<void> {
  await Promise.all(
    nodes.map(async (n) => {
      if (n.child.exitCode !== null || n.child.signalCode !== null) return;
      n.child.kill('SIGTERM');
      const timer = setTimeout(() => n.child.kill('SIGKILL'), 20_000);
      await n.exited;
      clearTimeout(timer);
    }),
  );
}

/** `pid` and every process below it (a node with PARLEY_WORKERS=1 normally has none). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(parents.get(out[i]!) ?? []));
  return out;
}

/** CPU time (user + system, ms) of every node's processes so far. */
export function nodesCpuMs(nodes: ParleyNode[]): number {
  return nodes.flatMap((n) => processTree(n.pid)).reduce((ms, pid) => ms + (processCpuMs(pid) || 0), 0);
}

/** `kill -9` on a node's processes; resolves with Date.now() at the kill. */
export function killNode(node: ParleyNode): number {
  const pids = processTree(node.pid);
  const at = Date.now();
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  return at;
}

export interface RedisFigures {
  /** Calls per command name (INFO commandstats), `info` itself left out. */
  calls: Record<string, number>;
  /** used_cpu_sys + used_cpu_user, ms. */
  cpuMs: number;
}

export type RedisStats = Awaited<ReturnType<typeof redisStats>>;

/** INFO commandstats and INFO cpu of the bench's redis-server, over its own connection. */
export async function redisStats(url: string) {
  const client = createClient({ url });
  await client.connect();
  const read = async (): Promise<RedisFigures> => {
    const calls: Record<string, number> = {};
    for (const m of (await client.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (m[1] !== 'info') calls[m[1]!] = Number(m[2]);
    }
    const cpu = await client.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 'NaN');
    return { calls, cpuMs: (field('used_cpu_sys') + field('used_cpu_user')) * 1000 };
  };
  return { read, close: () => client.close() };
}

/** Calls per command between two readings, largest first. */
export function callsBetween(before: RedisFigures, after: RedisFigures): Record<string, number> {
  const diff = Object.entries(after.calls)
    .map(([name, n]) => [name, n - (before.calls[name] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(diff);
}

export const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
