import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inputsHash } from '../../scripts/build-if-changed.js';
import { buildSteps, stampDir } from '../../scripts/build.js';
import { projectRoot } from '../../src/project/project-root.js';
import { testAdminKey } from './parley.js';
import { freePort, type TestRedis } from './redis-server.js';
import { testModelsDir } from './test-models.js';

/**
 * The real entry point (dist/src/main.js, built by the suite's globalSetup) in a child process, as
 * `npm start` runs it, with
 * a clean Parley environment plus the test's variables; its JSON log lines parsed as they come
 * (stdout is a pipe, so PARLEY_LOG_FORMAT's default `auto` logs JSON).
 */

export const bootTimeoutMs = 30_000;
export const exitTimeoutMs = 20_000;

export interface MainProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The JSON log lines printed so far. */
  logs(): Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * This process's environment less what configures Parley (PARLEY_*, LIVEKIT_*, OPENAI_*,
 * REDIS_URL, PORT, MODELS_DIR, NODE_ENV): the base of a Parley child's, which its starter sets.
 */
export function cleanParleyEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined &&
        !e[0].startsWith('PARLEY_') &&
        !e[0].startsWith('LIVEKIT_') &&
        !e[0].startsWith('OPENAI_') &&
        !['REDIS_URL', 'PORT', 'MODELS_DIR', 'NODE_ENV'].includes(e[0]),
    ),
  );
}

/**
 * Runs `node dist/src/main.js` with a clean Parley environment (`cleanParleyEnv`) plus `env`.
 * Compiled rather than through tsx: what `npm start` runs, and it listens in a third of the time
 * (tsx compiles ~600 modules in every process, ~12 s of a 2-core box's time per start).
 */
export function startMain(env: Record<string, string>): MainProcess {
  const child = spawn(process.execPath, [builtMain()], {
    cwd: projectRoot,
    env: { ...cleanParleyEnv(), NODE_ENV: 'test', PARLEY_LOG_LEVEL: 'info', PARLEY_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const logs = () =>
    out.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return { child, stdout: () => out, stderr: () => err, logs, exited };
}

export interface ParleyProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the signal that ended the process (null for a normal exit). */
  exited: Promise<NodeJS.Signals | null>;
}

/**
 * `startMain` on the test's Redis, on a free port, with the test admin key and one process
 * (PARLEY_WORKERS=1 unless `env` says otherwise); resolves once it listens, and kills it with
 * SIGKILL if it has not started within `bootTimeoutMs`. `env` adds PARLEY_* settings.
 */
export async function startParleyProcess(redis: TestRedis, env: Record<string, string> = {}): Promise<ParleyProcess> {
  const port = await freePort();
  const p = startMain({
    PARLEY_WORKERS: '1',
    PORT: String(port),
    PARLEY_ADMIN_API_KEY: testAdminKey,
    REDIS_URL: redis.url,
    MODELS_DIR: await testModelsDir(),
    ...env,
  });
  const output = () => `${p.stdout()}${p.stderr()}`;
  const deadline = Date.now() + bootTimeoutMs;
  while (!output().includes('Parley listening on')) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`parley exited:\n${output()}`);
    if (Date.now() > deadline) {
      p.child.kill('SIGKILL');
      throw new Error(`parley did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, child: p.child, exited: p.exited.then(({ signal }) => signal) };
}

/** The log lines whose message matches `msg`. */
export function logsOf(p: MainProcess, msg: RegExp): Record<string, unknown>[] {
  return p.logs().filter((l) => typeof l['msg'] === 'string' && msg.test(l['msg']));
}

/** Resolves when `count` log lines have message `msg` (the last of them); fails on exit or after `timeoutMs`. */
export async function waitForLog(
  p: MainProcess,
  msg: RegExp,
  timeoutMs = bootTimeoutMs,
  count = 1,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = logsOf(p, msg);
    if (lines.length >= count) return lines[count - 1]!;
    if (p.child.exitCode !== null || p.child.signalCode !== null) {
      throw new Error(`parley exited before logging ${msg}:\n${p.stdout()}\n${p.stderr()}`);
    }
    if (Date.now() > deadline)
      throw new Error(`no log line ${msg} within ${timeoutMs} ms:\n${p.stdout()}\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitForExit(p: MainProcess, timeoutMs = exitTimeoutMs) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`parley did not exit within ${timeoutMs} ms:\n${p.stderr()}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([p.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped) has an empty command line.
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== '';
  } catch {
    return true;
  }
}

export async function waitGone(pid: number, timeoutMs = exitTimeoutMs): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** SIGTERM, then the exit status; the output is attached when it is not a clean exit 0. */
export async function stopMain(p: MainProcess, timeoutMs = exitTimeoutMs) {
  p.child.kill('SIGTERM');
  const status = await waitForExit(p, timeoutMs);
  if (status.code !== 0) console.error(`parley exited with ${JSON.stringify(status)}:\n${p.stdout()}\n${p.stderr()}`);
  return status;
}

let checked: string | undefined;

/**
 * dist/src/main.js, checked once per test process to be built from the sources as they are (the
 * hash `npm start`'s build keeps): a stale build would test yesterday's code.
 */
export function builtMain(): string {
  const main = join(projectRoot, 'dist/src/main.js');
  if (checked === main) return main;
  const server = buildSteps.find((step) => step.name === 'server')!;
  const stamp = join(stampDir, `${server.name}.sha256`);
  const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : undefined;
  if (!existsSync(main) || built !== inputsHash(projectRoot, server.inputs)) {
    throw new Error(
      'dist/ is missing or older than src/: run `npm run build` (the suite builds it in its globalSetup)',
    );
  }
  checked = main;
  return main;
}
