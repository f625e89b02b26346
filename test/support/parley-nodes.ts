import { adminClient, type AdminClient } from './admin-client.js';
import { bootTimeoutMs, isAlive, startMain, waitForLog, waitGone, type MainProcess } from './main-process.js';
import { testAdminKey } from './parley.js';
import { freePort, type TestRedis } from './redis-server.js';
import { testModelsDir } from './test-models.js';

/** One Parley server (src/main.ts in a child process) of a multi-node test, on its own port. */
export interface ParleyNode extends AdminClient {
  name: string;
  url: string;
  main: MainProcess;
  /** Every pid of the server: its primary and, with PARLEY_WORKERS > 1, its cluster workers. */
  pids(): number[];
  /** The processes that run Parley (the cluster workers, or the one process with PARLEY_WORKERS=1). */
  servingPids(): number[];
}

/**
 * Starts `count` Parley servers on the same Redis, each on its own free port with the test admin
 * key and `env` (PARLEY_WORKERS=1 unless `env` says otherwise); resolves once all listen.
 */
export async function startNodes(redis: TestRedis, count: number, env: Record<string, string>): Promise<ParleyNode[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const port = await freePort();
      const main = startMain({
        PARLEY_WORKERS: '1',
        PORT: String(port),
        PARLEY_ADMIN_API_KEY: testAdminKey,
        REDIS_URL: redis.url,
        MODELS_DIR: await testModelsDir(),
        ...env,
      });
      await waitForLog(main, /Parley listening on/, bootTimeoutMs * 2);
      const url = `http://127.0.0.1:${port}`;
      const workerPids = () =>
        main
          .logs()
          .filter((l) => typeof l['worker'] === 'number' && typeof l['pid'] === 'number')
          .map((l) => l['pid'] as number);
      return {
        ...adminClient(url, testAdminKey),
        name: `node-${i + 1}`,
        url,
        main,
        pids: () => [...new Set([main.child.pid!, ...workerPids()])],
        servingPids: () => (workerPids().length > 0 ? [...new Set(workerPids())] : [main.child.pid!]),
      };
    }),
  );
}

/** kill -9 of every process of the node (primary and workers), as a machine lost would; resolves once all are gone. */
export async function killNode(node: ParleyNode): Promise<void> {
  const pids = node.pids();
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const pid of pids) await waitGone(pid);
}

/** Stops every node still running by pid: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopNodes(nodes: readonly ParleyNode[], graceMs = 15_000): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      const pids = node.pids().filter(isAlive);
      if (pids.length === 0) return;
      process.kill(pids[0]!, 'SIGTERM');
      if (await waitGone(pids[0]!, graceMs)) return;
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }),
  );
}
