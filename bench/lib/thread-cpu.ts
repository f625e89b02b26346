import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system) one thread of a Linux process has used, in ms (10 ms ticks); the main
 * thread's id is the process id. NaN where /proc is absent. Tells a Node process's event-loop
 * thread apart from its libuv pool and native threads (ONNX Runtime).
 */
export function threadCpuMs(pid: number, tid: number = pid): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
