import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.js';

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

  it('names every kernel file and composition root directly in src/', () => {
    const section = architecture();
    const files = readdirSync(join(projectRoot, 'src'), { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => e.name.replace(/\.ts$/, ''));
    for (const file of files) expect(section).toMatch(new RegExp('`' + file + '(\\.ts)?`'));
  });
});
