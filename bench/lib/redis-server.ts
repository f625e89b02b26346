import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createClient } from 'redis';
import { freePort } from '../../test/support/redis-server.js';

/** A redis-server owned by one bench run: in memory only, on a free 127.0.0.1 port. */
export interface BenchRedis {
  readonly url: string;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Spawns `redis-server` with persistence off (benches measure reads and throwaway writes). It
 * ignores `REDIS_URL` on purpose: a bench loads data into its server, so it never borrows one.
 */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: 'ignore' },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit); // never outlive the bench, whatever way it ends
  child.once('exit', () => process.off('exit', killOnExit));
  const url = `redis://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitReady(url, () => child.exitCode !== null);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, close };
}

async function waitReady(url: string, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = createClient({ url, socket: { reconnectStrategy: false } });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      return;
    } catch {
      if (exited()) throw new Error('redis-server exited at start (is it installed?)');
      if (Date.now() > deadline) throw new Error(`redis-server did not start on ${url}`);
      await new Promise((r) => setTimeout(r, 25));
    } finally {
      client.destroy();
    }
  }
}
