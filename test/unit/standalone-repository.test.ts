import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/**
 * A clone of the repository stands alone (issue 30): no file points outside it. Written in two parts
 * so that this file does not find itself.
 */
const outside = ['..', 'shared'].join('/');

/** Every file git tracks or would track (not ignored), relative to the root. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  return out.split('\0').filter((f) => f !== '' && existsSync(join(projectRoot, f)));
}

/** A file's text, or null for binary files (a NUL byte near the start). */
function text(file: string): string | null {
  const bytes = readFileSync(join(projectRoot, file));
  return bytes.subarray(0, 8000).includes(0) ? null : bytes.toString('utf8');
}

describe('the repository stands alone', () => {
  it(`has no file that names ${outside} (code, tests, benches, scripts, docs)`, () => {
    const hits: string[] = [];
    for (const file of repositoryFiles()) {
      const lines = text(file)?.split('\n') ?? [];
      lines.forEach((line, i) => {
        if (line.includes(outside)) hits.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it('links from every Markdown file only to files inside the repository that exist', () => {
    const broken: string[] = [];
    for (const file of repositoryFiles().filter((f) => f.endsWith('.md'))) {
      for (const [, target] of (text(file) ?? '').matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
        const path = resolve(projectRoot, dirname(file), target!);
        if (relative(projectRoot, path).startsWith('..') || !existsSync(path)) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
