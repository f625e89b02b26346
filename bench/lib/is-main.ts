import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** True when the module at `moduleUrl` is the script node was started with (`node --import tsx bench/x.ts`). */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}
