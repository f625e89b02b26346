import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { createClient } from 'redis';
import { BootError } from './boot-error.js';
import { claimRedisDir, redisPidFileName } from './redis-dir-lock.js';

export interface EmbeddedRedisOptions {
  /** Folder for the append-only files; created when missing. */
  dir: string;
  logger: Logger;
  /** The redis-server executable; default `redis-server` from PATH. */
  bin?: string;
  /** How long one start may take to answer PING. */
  readyTimeoutMs?: number;
  /** Called when the server keeps dying and restarts stop being tried; main.ts exits then. */
  onGiveUp?: (err: Error) => void;
}

export const defaultEmbeddedRedisOptions = {
  bin: 'redis-server',
  readyTimeoutMs: 15_000,
  /** Consecutive failed restarts before giving up. */
  maxRestarts: 10,
  restartBaseMs: 250,
  restartMaxMs: 10_000,
  stopTimeoutMs: 10_000,
} as const;

export const redisMissingMessage =
  'redis-server was not found on PATH. Parley keeps its data in Redis: install it ' +
  '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), ' +
  'or set REDIS_URL to a Redis server you run (e.g. REDIS_URL=redis://127.0.0.1:6379).';

/** How many lines of the server's own output are kept for error messages. */
const outputLinesKept = 30;
/** A server up this long before it died counts as healthy: the restart backoff starts over. */
const stableAfterMs = 60_000;

/**
 * A redis-server child that Parley starts when REDIS_URL is unset: append-only persistence in
 * `dir`, bound to 127.0.0.1 on a free port, a random password per Parley process (passed on stdin,
 * so it never shows in `ps`). Restarted with capped exponential backoff when it dies; stopped with
 * SIGTERM (Redis fsyncs its AOF) on shutdown.
 */
export class EmbeddedRedis {
  private child: ChildProcess | undefined;
  private stopping = false;
  private failures = 0;
  private readyAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly output: string[] = [];

  private constructor(
    private readonly options: Required<Omit<EmbeddedRedisOptions, 'onGiveUp'>> & Pick<EmbeddedRedisOptions, 'onGiveUp'>,
    private readonly port: number,
    private readonly password: string,
    private readonly release: () => Promise<void>,
  ) {}

  static async start(options: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
    const opts = {
      bin: defaultEmbeddedRedisOptions.bin,
      readyTimeoutMs: defaultEmbeddedRedisOptions.readyTimeoutMs,
      ...options,
      dir: resolve(options.dir),
    };
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    const release = await claimRedisDir(opts.dir, opts.logger);
    const password = randomBytes(24).toString('hex');
    // The port is free when chosen but could be taken before redis-server binds it: try a few.
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const server = new EmbeddedRedis(opts, await freePort(), password, release);
      try {
        await server.spawnAndWait();
        opts.logger.info({ port: server.port, dir: opts.dir, pid: server.pid }, 'embedded redis-server started');
        return server;
      } catch (err) {
        server.stopping = true;
        await server.stopChild();
        if (err instanceof BootError) {
          await release();
          throw err;
        }
        lastError = err as Error;
      }
    }
    await release();
    throw new BootError(`embedded redis-server did not start: ${lastError?.message ?? 'unknown error'}`);
  }

  /** `redis://:<password>@127.0.0.1:<port>`: a secret, never log it. */
  get url(): string {
    return `redis://:${this.password}@127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Stops supervising, sends SIGTERM and waits for the exit (SIGKILL after stopTimeoutMs). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.stopChild();
    await this.release();
  }

  /** Synchronous SIGTERM for exit paths that cannot wait; Redis still fsyncs its AOF on its own. */
  killNow(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null && !child.killed) {
      child.kill('SIGTERM');
    }
  }

  private configText(): string {
    const quote = (v: string) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    return [
      `port ${this.port}`,
      'bind 127.0.0.1',
      'protected-mode yes',
      `requirepass ${this.password}`,
      `dir ${quote(this.options.dir)}`,
      `pidfile ${quote(join(this.options.dir, redisPidFileName))}`,
      'appendonly yes',
      'appendfsync everysec',
      'save ""',
      'daemonize no',
      'loglevel warning',
      'logfile ""',
      '',
    ].join('\n');
  }

  private async spawnAndWait(): Promise<void> {
    // detached: its own process group, so a Ctrl-C in the terminal reaches only Parley, which
    // then stops the server in order (after the HTTP server has drained).
    const child = spawn(this.options.bin, ['-'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    const spawned = new Promise<void>((resolveSpawn, rejectSpawn) => {
      child.once('spawn', resolveSpawn);
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) this.options.logger.warn({ err: err.message }, 'embedded redis-server error');
        rejectSpawn(err.code === 'ENOENT' ? new BootError(redisMissingMessage) : err);
      });
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(this.configText());
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      createInterface({ input: stream }).on('line', (line) => {
        this.output.push(line);
        if (this.output.length > outputLinesKept) this.output.shift();
        this.options.logger.debug({ redis: line }, 'redis-server output');
      });
    }
    const exited = new Promise<never>((_, rejectExit) => {
      // 'close', not 'exit': by then the last lines of output have been read.
      child.once('close', (code, signal) =>
        rejectExit(new Error(`redis-server exited (${signal ?? `code ${code}`}): ${this.lastOutput()}`)),
      );
    });
    exited.catch(() => undefined); // observed by the race below; this only marks it handled before then
    child.once('close', (code, signal) => this.onExit(child, code, signal));
    await spawned;
    await Promise.race([this.waitForPing(), exited]);
    this.readyAt = Date.now();
  }

  private async waitForPing(): Promise<void> {
    const deadline = Date.now() + this.options.readyTimeoutMs;
    for (;;) {
      const client = createClient({ url: this.url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          throw new Error(
            `redis-server did not answer PING within ${this.options.readyTimeoutMs} ms: ${(err as Error).message}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        if (client.isOpen) client.destroy();
      }
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping || child !== this.child) return;
    // A server that ran for a while before dying starts a fresh series of restarts.
    if (this.readyAt !== 0 && Date.now() - this.readyAt > stableAfterMs) this.failures = 0;
    this.readyAt = 0;
    this.failures += 1;
    const { logger } = this.options;
    logger.error(
      { code, signal, failures: this.failures, output: this.lastOutput() },
      'embedded redis-server exited unexpectedly',
    );
    if (this.failures > defaultEmbeddedRedisOptions.maxRestarts) {
      this.stopping = true;
      this.options.onGiveUp?.(new Error(`embedded redis-server keeps exiting: ${this.lastOutput()}`));
      return;
    }
    const delayMs = Math.min(
      defaultEmbeddedRedisOptions.restartBaseMs * 2 ** (this.failures - 1),
      defaultEmbeddedRedisOptions.restartMaxMs,
    );
    this.restartTimer = setTimeout(() => {
      this.spawnAndWait().then(
        () => {
          this.failures = 0;
          logger.info({ port: this.port, pid: this.pid }, 'embedded redis-server restarted');
        },
        (err: Error) => {
          logger.error({ err: err.message }, 'embedded redis-server restart failed');
          const failed = this.child;
          if (failed === undefined || this.stopping) return;
          // A child that is up but never answered PING is killed; its exit schedules the next try.
          if (failed.pid === undefined) this.onExit(failed, null, null);
          else if (failed.exitCode === null && failed.signalCode === null) failed.kill('SIGKILL');
        },
      );
    }, delayMs);
  }

  private async stopChild(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    await new Promise<void>((resolveExit) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), defaultEmbeddedRedisOptions.stopTimeoutMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolveExit();
      });
      child.kill('SIGTERM');
    });
  }

  private lastOutput(): string {
    return this.output.slice(-5).join(' | ') || '(no output)';
  }
}

/** A TCP port on 127.0.0.1 that is free right now, chosen by the OS. */
async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}
