import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIfChanged, inputsHash, type BuildStep } from '../../scripts/build-if-changed.js';
import { buildSteps } from '../../scripts/build.js';
import { projectRoot } from '../../src/project/project-root.js';

/** `npm start` builds only what changed: fake steps on a temp folder, so the suite runs no real build. */

let root: string;
let runs: Record<string, number>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'parley-build-'));
  mkdirSync(join(root, 'src', 'sub'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'a');
  writeFileSync(join(root, 'src', 'sub', 'b.ts'), 'b');
  writeFileSync(join(root, 'lock.json'), '{}');
  runs = {};
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A step that counts its runs and writes its output (or fails, when told). */
function step(name: string, inputs: string[], fail = false): BuildStep {
  return {
    name,
    inputs,
    output: `out/${name}.js`,
    run: () => {
      runs[name] = (runs[name] ?? 0) + 1;
      if (fail) return Promise.reject(new Error(`${name} failed`));
      mkdirSync(join(root, 'out'), { recursive: true });
      writeFileSync(join(root, 'out', `${name}.js`), 'built');
      return Promise.resolve();
    },
  };
}

const build = (steps: BuildStep[], force = false) =>
  buildIfChanged(steps, { root, stampDir: join(root, 'out', '.build-inputs'), force });

describe('build steps skipped when their inputs did not change', () => {
  const steps = () => [step('server', ['src', 'lock.json']), step('panel', ['src/sub'])];

  it('builds every step the first time, and none the second', async () => {
    expect(await build(steps())).toEqual([]);
    expect(runs).toEqual({ server: 1, panel: 1 });
    expect(await build(steps())).toEqual(['server', 'panel']);
    expect(runs).toEqual({ server: 1, panel: 1 });
  });

  it('rebuilds only the steps an edited, added or removed file belongs to', async () => {
    await build(steps());
    writeFileSync(join(root, 'src', 'a.ts'), 'a2');
    expect(await build(steps())).toEqual(['panel']);
    expect(runs).toEqual({ server: 2, panel: 1 });

    writeFileSync(join(root, 'src', 'sub', 'c.ts'), 'c');
    expect(await build(steps())).toEqual([]);
    rmSync(join(root, 'src', 'sub', 'c.ts'));
    expect(await build(steps())).toEqual([]);
    expect(runs).toEqual({ server: 4, panel: 3 });
    expect(await build(steps())).toEqual(['server', 'panel']);
  });

  it('rebuilds a step whose output is gone, and every step when forced (npm run build)', async () => {
    await build(steps());
    rmSync(join(root, 'out', 'panel.js'));
    expect(await build(steps())).toEqual(['server']);
    expect(runs).toEqual({ server: 1, panel: 2 });
    expect(await build(steps(), true)).toEqual([]);
    expect(runs).toEqual({ server: 2, panel: 3 });
    expect(await build(steps())).toEqual(['server', 'panel']);
  });

  it('keeps no hash for a step that failed, so the next start builds it again', async () => {
    await expect(build([step('server', ['src'], true)])).rejects.toThrow('server failed');
    expect(existsSync(join(root, 'out', '.build-inputs', 'server.sha256'))).toBe(false);
    await build([step('server', ['src'])]);
    expect(runs).toEqual({ server: 2 });
  });

  it('hashes a file by its path as well as its content', () => {
    const before = inputsHash(root, ['src']);
    rmSync(join(root, 'src', 'sub', 'b.ts'));
    writeFileSync(join(root, 'src', 'b.ts'), 'b');
    expect(inputsHash(root, ['src'])).not.toBe(before);
  });
});

describe("npm start's build steps", () => {
  it('name inputs that exist, so a moved file cannot leave a step stale', () => {
    for (const { name, inputs } of buildSteps) {
      for (const input of inputs) expect(existsSync(join(projectRoot, input)), `${name}: ${input}`).toBe(true);
    }
    expect(buildSteps.map((s) => s.name)).toEqual(['server', 'panel', 'client']);
  });
});
