import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/** The README's architecture section, up to the next `## ` heading. */
function architecture(): string {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Architecture\n');
  expect(start).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end);
}

describe("the README's architecture section", () => {
  it('names every folder under src/, one table row each, and no folder that is gone', () => {
    const folders = readdirSync(join(projectRoot, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${e.name}/`)
      .sort();
    const rows = [...architecture().matchAll(/^\| `([a-z-]+\/)` +\|/gm)].map((m) => m[1]).sort();
    expect(rows).toEqual(folders);
  });

  it('finds directly in src/ only the composition roots, and names each', () => {
    const section = architecture();
    const files = readdirSync(join(projectRoot, 'src'), { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    expect(files).toEqual(['main.ts', 'parley.ts', 'services.ts']);
    for (const file of files) expect(section).toContain('`' + file + '`');
  });
});
