import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
// The project's .npmrc alone: a developer's own ~/.npmrc is not this test's business.
const home = mkdtempSync(join(tmpdir(), 'parley-npmrc-'));
const userconfig = join(home, '.npmrc');
writeFileSync(userconfig, '');
afterAll(() => rmSync(home, { recursive: true, force: true }));

function npm(...args: string[]) {
  return spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_userconfig: userconfig },
    shell: process.platform === 'win32',
    timeout: 20_000,
  });
}

describe('the project npm config', () => {
  it('makes npm print no warning (npm start printed an unknown project config four times)', () => {
    const result = npm('pkg', 'get', 'name');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('"parley"');
    expect(result.stderr).not.toMatch(/npm warn/i);
  });

  it('still skips the onnxruntime-node CUDA download where installs run', () => {
    // onnxruntime-node's postinstall reads ONNXRUNTIME_NODE_INSTALL; `skip` stops it downloading.
    expect(readFileSync(join(root, 'scripts/bootstrap.mjs'), 'utf8')).toMatch(
      /ONNXRUNTIME_NODE_INSTALL: env\.ONNXRUNTIME_NODE_INSTALL \|\| 'skip'/,
    );
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const installs = dockerfile.split('\n').filter((line) => /\bnpm (ci|install)\b/.test(line));
    expect(installs.length).toBeGreaterThan(0);
    for (const line of installs) expect(line).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm');
  });

  it('approves the install script of every locked package that has one (npm 11.16+ warns of the others)', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    expect(scripted.length).toBeGreaterThan(0);
    for (const name of scripted) expect(pkg.allowScripts?.[name], name).toBe(true);
  });
});
