import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';

/** A free TCP port on 127.0.0.1, chosen by the OS. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface TestRedisOptions {
  /**
   * Use `REDIS_URL` when it is set instead of starting a server (default true). Benches pass
   * false: they load data into their server, so they never borrow one.
   */
  external?: boolean;
  /** Append-only file on, so a stopped server starts again with its data (default true). */
  persistence?: boolean;
}

/**
 * A real redis-server of the test's (or bench's) own, on a free port with a temp dir. It can be
 * stopped and started again on the same port and dir (append-only file on), to test restarts and
 * outages. With REDIS_URL set, `url` is that instead and stop/start are not available.
 */
export class TestRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly url: string,
    private readonly port: number,
    private readonly dir: string | undefined,
    private readonly persistence: boolean,
  ) {}

  static async start(options: TestRedisOptions = {}): Promise<TestRedis> {
    const { external = true, persistence = true } = options;
    const url = process.env['REDIS_URL'];
    if (external && url !== undefined && url !== '') return new TestRedis(url, 0, undefined, persistence);
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'parley-redis-'));
    const redis = new TestRedis(`redis://127.0.0.1:${port}`, port, dir, persistence);
    try {
      await redis.startServer();
    } catch (err) {
      await redis.close();
      throw err;
    }
    return redis;
  }

  get ownsServer(): boolean {
    return this.dir !== undefined;
  }

  async startServer(): Promise<void> {
    if (this.dir === undefined) throw new Error('REDIS_URL is set: this test needs its own redis-server');
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--appendonly',
        this.persistence ? 'yes' : 'no',
        '--save',
        '',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    // A process that dies without afterAll must not leave its redis-server behind.
    const reap = () => child.kill('SIGKILL');
    process.once('exit', reap);
    child.once('exit', () => process.removeListener('exit', reap));
    await this.waitReady(() => child.exitCode !== null || child.signalCode !== null);
  }

  async stopServer(): Promise<void> {
    await this.signalAndWait('SIGTERM');
  }

  /** Kills the server outright (SIGKILL), as a crash would: connections reset, nothing flushed. */
  async killServer(): Promise<void> {
    await this.signalAndWait('SIGKILL');
  }

  /** Freezes the server (SIGSTOP): it keeps its port and accepts connections but answers nothing. */
  pauseServer(): void {
    this.runningChild().kill('SIGSTOP');
  }

  /** Thaws a server frozen by pauseServer (SIGCONT). */
  resumeServer(): void {
    this.runningChild().kill('SIGCONT');
  }

  private runningChild(): ChildProcess {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) throw new Error('no redis-server of this test is running');
    return child;
  }

  private async signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // A frozen server would not act on SIGTERM until thawed; SIGKILL needs no thaw (and must not
      // get one: a thawed server would answer the commands waiting on it first).
      if (signal !== 'SIGKILL') child.kill('SIGCONT');
      child.kill(signal);
    });
    this.child = undefined;
  }

  /** Deletes every key (for an external REDIS_URL only the keys under `prefix`). */
  async flush(prefix = 'parley'): Promise<void> {
    const client = createClient({ url: this.url });
    await client.connect();
    try {
      if (this.ownsServer) await client.flushAll();
      else
        for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 }))
          if (keys.length) await client.del(keys);
    } finally {
      client.destroy();
    }
  }

  async close(): Promise<void> {
    await this.stopServer();
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitReady(exited: () => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = createClient({ url: this.url, socket: { reconnectStrategy: false } });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.ping();
        client.destroy();
        return;
      } catch {
        if (client.isOpen) client.destroy(); // destroy() throws on a client that never connected
        if (exited()) throw new Error('redis-server exited at start (is it installed?)');
        if (Date.now() > deadline) throw new Error(`redis-server did not start on ${this.url}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }
}
