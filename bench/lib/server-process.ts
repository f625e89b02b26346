import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from './cpu-time.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const readyPrefix = 'BENCH_LISTENING ';

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** CPU time (user + system) the server process has used so far, in ms; NaN where /proc is absent. */
  cpuMs(): number;
  /** SIGTERM, then waits for a clean exit (which is when a `--cpu-prof` profile is written). */
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  /** Label for messages and the profile file name. */
  name: string;
  /** TypeScript or JS file, run with `node --import tsx`. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
  /** Writes V8 CPU profiles of the server into `<cpuProfDir>/<name>/` when it stops. */
  cpuProfDir?: string | undefined;
  readyTimeoutMs?: number;
}

/**
 * Runs a server in its own process, so the load generator and the server do not share an event
 * loop. The child calls `announceListening(port)` once it accepts connections.
 */
export async function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  const profile: string[] = [];
  if (options.cpuProfDir !== undefined) {
    // One folder per server: node names each thread's profile itself (tsx adds a loader thread).
    const dir = join(options.cpuProfDir, options.name);
    mkdirSync(dir, { recursive: true });
    profile.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', ...profile, options.script, ...(options.args ?? [])], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  // Never outlive the bench, whatever way it ends.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 30_000;
    const timer = setTimeout(
      () => reject(new Error(`${options.name}: not listening after ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`${options.name}: exited before listening (${signal ?? code})`)),
    );
    lines.on('line', (line) => {
      if (line.startsWith(readyPrefix)) {
        clearTimeout(timer);
        resolve(Number(line.slice(readyPrefix.length)));
      } else {
        process.stderr.write(`[${options.name}] ${line}\n`);
      }
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    name: options.name,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    cpuMs: () => processCpuMs(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Child side: tells `spawnServer` the port, and exits cleanly on SIGTERM/SIGINT after `close`. */
export function announceListening(port: number, close: () => Promise<void>): void {
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${readyPrefix}${port}\n`);
}
