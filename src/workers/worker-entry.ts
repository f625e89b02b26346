import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where to start a worker whose module is `<name>.js` next to `base` (a module's `import.meta.url`):
 * the compiled file when it exists; otherwise (tsx, vitest) the TypeScript source through a shim
 * that registers tsx inside the worker first (Node 20 ignores `--import` in a worker's execArgv).
 */
export function workerEntry(base: string, name: string): { url: URL; fromSource: boolean } {
  const js = new URL(`./${name}.js`, base);
  if (existsSync(fileURLToPath(js))) return { url: js, fromSource: false };
  const ts = new URL(`./${name}.ts`, base).href;
  const shim =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(ts)});`;
  return { url: new URL(`data:text/javascript,${encodeURIComponent(shim)}`), fromSource: true };
}
