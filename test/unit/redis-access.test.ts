import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

// The import rules (.dependency-cruiser.mjs) keep the `redis` package to src/store; this keeps its
// client there too: nothing outside the store calls the Store's `redis` connection directly.
describe('Redis only through the store', () => {
  it('no file outside src/store (but the composition root that connects it) touches store.redis', () => {
    const offenders = sources(join(projectRoot, 'src'))
      .filter((f) => !relative(projectRoot, f).startsWith('src/store/') && !f.endsWith('src/parley.ts'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${relative(projectRoot, f)}:${i + 1}` }))
          .filter(({ line }) => /\bstore\.redis\b|\bredis\.[a-zA-Z]+\(/.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});
