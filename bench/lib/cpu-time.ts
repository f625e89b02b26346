import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** utime + stime of a /proc `stat` file, in ms (clock ticks, 100 per second); NaN where it cannot be read. */
function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name, which is in parentheses and may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN; // no /proc (not Linux) or the process is gone: NaN says so in the figure
  }
}

/** CPU time (user + system) a Linux process has used so far, in ms; NaN where /proc is absent. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * CPU time (user + system) one thread of a Linux process has used, in ms; the main thread's id is
 * the process id. NaN where /proc is absent. Tells a Node process's event-loop thread apart from
 * its libuv pool and native threads (ONNX Runtime).
 */
export function threadCpuMs(pid: number, tid: number = pid): number {
  return statCpuMs(`/proc/${pid}/task/${tid}/stat`);
}

/** This process's CPU (all threads) per second over `ms` of no work: a server's idle cost, to take out. */
export async function idleCpuMsPerS(ms: number): Promise<number> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / ((performance.now() - t0) / 1000);
}
