import { Keys } from '../../src/store/keys.js';

/** Every key name Keys builds, with placeholder arguments (one per parameter): for slot checks. */
export function everyKey(keys: Keys): { method: string; key: string }[] {
  const methods = Object.getOwnPropertyNames(Keys.prototype).filter((m) => m !== 'constructor' && m !== 'k');
  return methods.map((method) => {
    const build = (keys as unknown as Record<string, (...args: string[]) => string>)[method]!;
    const args = Array.from({ length: build.length }, (_, i) => `arg${i}-01JCLUSTER`);
    return { method, key: build.apply(keys, args) };
  });
}
