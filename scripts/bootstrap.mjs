// Installs the dependencies (`npm ci`) when node_modules is missing or does not match
// package-lock.json, so that `npm start` and `npm test` work on a fresh clone. No dependencies of
// its own: it runs before any are installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The `packages` map of a lockfile, or undefined when it cannot be read. */
function lockedPackages(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8')).packages ?? {};
  } catch {
    return undefined; // missing or not JSON: the caller names which file and installs
  }
}

/**
 * Why an install is needed, or undefined when node_modules is up to date. npm keeps the installed
 * tree in node_modules/.package-lock.json; every non-optional package of package-lock.json must be
 * there at the same version (optional ones are platform builds: most are skipped on purpose).
 */
function staleReason() {
  const wanted = lockedPackages(join(root, 'package-lock.json'));
  if (wanted === undefined) return 'package-lock.json is missing';
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      // npm ci then fails with its own message: package.json and package-lock.json out of step.
      if (wanted['']?.[field]?.[name] !== range) return `package-lock.json does not match package.json (${name})`;
    }
  }
  const installed = lockedPackages(join(root, 'node_modules', '.package-lock.json'));
  if (installed === undefined) return 'node_modules is missing';
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || entry.optional === true || entry.link === true) continue;
    if (installed[path]?.version !== entry.version) return `${path} is missing or not at ${entry.version}`;
  }
  return undefined;
}

/**
 * What the install's scripts read besides npm's own settings. onnxruntime-node's postinstall
 * downloads its CUDA provider libraries (hundreds of MB, from a NuGet feed: it fails offline and
 * breaks the install) on linux-x64 unless told `skip`; Parley runs ONNX models on the CPU. The
 * setting is an environment variable here rather than a key in .npmrc, where npm warns of an unknown
 * project config on every command (`npm start` printed it four times). A value already set (such as
 * `cuda12` on a GPU machine) is kept.
 */
function installEnv(env) {
  return { ONNXRUNTIME_NODE_INSTALL: env.ONNXRUNTIME_NODE_INSTALL || 'skip' };
}

const reason = staleReason();
if (reason !== undefined) {
  if (reason === 'package-lock.json is missing') {
    console.error(
      'bootstrap: package-lock.json is missing; run `ONNXRUNTIME_NODE_INSTALL=skip npm install` once to create it',
    );
    process.exit(1);
  }
  console.error(`bootstrap: installing dependencies with npm ci (${reason})`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    env: { ...process.env, ...installEnv(process.env) },
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  });
  if (result.status !== 0) {
    console.error(`bootstrap: npm ci failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
    process.exit(result.status ?? 1);
  }
}
