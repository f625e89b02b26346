import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/**
 * A `git clone` into an empty folder runs its tests with nothing beside it (issue 30): the commit
 * this checkout is on is cloned into a temporary folder, node_modules linked from here (no
 * reinstall), and the tests that load models run there with MODELS_DIR unset, so the models come
 * from the clone alone. Uncommitted changes are not in the clone: CI runs on a clean one.
 */

/** Fast files that need the model fixtures, and the check that no file points outside. */
const subset = [
  'test/unit/standalone-repository.test.ts',
  'test/unit/test-models.test.ts',
  'test/unit/rag-embedder.test.ts',
  'test/integration/providers-local.test.ts',
];

let dir: string;
let clone: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-clone-'));
  clone = join(dir, 'parley');
  git(dir, 'clone', '--quiet', '--no-checkout', projectRoot, clone);
  git(clone, 'checkout', '--quiet', git(projectRoot, 'rev-parse', 'HEAD'));
  await symlink(await realpath(join(projectRoot, 'node_modules')), join(clone, 'node_modules'));
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Runs vitest in the clone on `files`, as a top-level run: none of this run's VITEST_* or MODELS_DIR. */
function vitestInClone(files: string[]): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'MODELS_DIR'),
  );
  const child = spawn(process.execPath, [join(clone, 'node_modules/vitest/vitest.mjs'), 'run', ...files], {
    cwd: clone,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('a clone of the repository', () => {
  it('has no shared folder beside it, and no change of its own', () => {
    expect(existsSync(join(dirname(clone), 'shared'))).toBe(false);
    expect(git(clone, 'status', '--porcelain')).toBe('');
  });

  it('writes its own test models and passes the tests that load them', { timeout: 300_000 }, async () => {
    const { code, output } = await vitestInClone(subset);
    expect(output).toMatch(new RegExp(`Test Files +${subset.length} passed \\(${subset.length}\\)`));
    expect(code).toBe(0);
    expect(existsSync(join(clone, 'test/fixtures/models/generated/minilm-l6-random/onnx/model_quantized.onnx'))).toBe(
      true,
    );
  });
});
