import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * This process's live memory after a full GC: JS heap in use plus memory outside it (array buffers
 * such as the VAD rings, native objects), and the resident set, in bytes.
 */
export function settledMemory(): { live: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { live: m.heapUsed + m.external, rss: m.rss };
}
