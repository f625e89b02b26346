import { getPriority, setPriority } from 'node:os';

/** Nice levels the VAD worker thread runs below the event loop (see lowerThreadPriority). */
export const backgroundNiceSteps = 10;

/**
 * Lowers the calling thread's CPU priority by `steps` nice levels (capped at 19) and returns its
 * new nice value; null where that is not possible. On Linux nice is per thread, so the event
 * loop and the process's other threads keep theirs: when a core is contended the scheduler
 * runs them first, and this thread takes what is left. Elsewhere (macOS, Windows) the call would
 * lower the whole process, so it is not made.
 */
export function lowerThreadPriority(steps: number): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const nice = Math.min(19, getPriority() + steps);
    setPriority(nice);
    return nice;
  } catch {
    // Refused (a seccomp profile without setpriority): the thread keeps the process's priority,
    // which is how it ran before; the caller reports the null.
    return null;
  }
}
