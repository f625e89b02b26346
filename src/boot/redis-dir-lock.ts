import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { BootError } from './boot-error.js';

/** Written by Parley: the pid of the Parley process whose redis-server uses the folder. */
export const ownerFileName = 'parley.pid';
/** Written by redis-server itself (`pidfile`), removed by it on a clean shutdown. */
export const redisPidFileName = 'redis-server.pid';

const orphanStopTimeoutMs = 10_000;

/**
 * Claims an embedded-redis folder for this process. Refuses when another live Parley owns it (two
 * servers appending to one AOF would corrupt it), and stops a redis-server that a crashed or
 * SIGKILLed Parley left running on it. Returns the function that gives the folder back.
 */
export async function claimRedisDir(dir: string, logger: Logger): Promise<() => Promise<void>> {
  const ownerFile = join(dir, ownerFileName);
  const owner = await readPid(ownerFile);
  if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
    const command = processCommand(owner);
    if (command === undefined || /node|parley/i.test(command)) {
      throw new BootError(
        `${dir} is in use by another Parley process (pid ${owner}). Give each instance its own PARLEY_DATA_DIR, ` +
          `or set REDIS_URL. If no other Parley is running, delete ${ownerFile}.`,
      );
    }
  }

  const orphan = await readPid(join(dir, redisPidFileName));
  if (
    orphan !== undefined &&
    orphan !== process.pid &&
    isRunning(orphan) &&
    /redis-server/.test(processCommand(orphan) ?? '')
  ) {
    logger.warn({ pid: orphan, dir }, 'stopping a redis-server left running by an earlier Parley process');
    await stopProcess(orphan);
  }

  await writeFile(ownerFile, `${process.pid}\n`, { mode: 0o600 });
  return async () => {
    // Already gone is fine: the lock is released either way, and a stale owner file is taken over by pid.
    if ((await readPid(ownerFile)) === process.pid) await unlink(ownerFile).catch(() => undefined);
  };
}

async function readPid(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // no owner file (or none readable): no owner to stop or to match
  }
}

/** Alive and not a zombie (a zombie's cmdline is empty). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return processCommand(pid) !== '';
}

/** The command line of a process: /proc on Linux, `ps` elsewhere; undefined when neither can tell. */
function processCommand(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    /* not Linux, or gone */
  }
  try {
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 2_000 }).trim();
  } catch {
    return undefined; // no ps, or the process is gone: "cannot tell", as documented above
  }
}

async function stopProcess(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + orphanStopTimeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) {
      signal('SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      if (isRunning(pid)) throw new BootError(`could not stop the leftover redis-server (pid ${pid}); stop it by hand`);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
