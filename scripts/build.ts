/**
 * Builds what `npm start` runs into dist/: the server (tsc), the /home panel and the client SDK.
 *
 *   node --import tsx scripts/build.ts               every step (npm run build)
 *   node --import tsx scripts/build.ts --if-changed  only steps whose inputs changed (npm start)
 *
 * Each step's inputs are hashed (scripts/build-if-changed.ts) and the hash kept in
 * dist/.build-inputs/ when it succeeds, so a restart with nothing changed builds nothing.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../src/project/project-root.js';
import { buildIfChanged, type BuildStep } from './build-if-changed.js';

/** Where each step's inputs hash is kept. */
export const stampDir = join(projectRoot, 'dist', '.build-inputs');

/** What the dependencies and compiler settings are: an input of every step. */
const shared = ['package-lock.json', 'tsconfig.json'];

export const buildSteps: readonly BuildStep[] = [
  {
    name: 'server',
    inputs: [...shared, 'tsconfig.build.json', 'src', 'machines'],
    output: 'dist/src/main.js',
    run: () =>
      run('tsc -b tsconfig.build.json', createRequire(import.meta.url).resolve('typescript/bin/tsc'), [
        '-b',
        'tsconfig.build.json',
      ]),
  },
  {
    // The panel bundles the client SDK's modules (src/client) with its own.
    name: 'panel',
    inputs: [...shared, 'tsconfig.browser.json', 'src/panel', 'src/client', 'scripts/build-panel.ts'],
    output: 'dist/panel/index.html',
    run: async () => {
      const { buildPanel } = await import('./build-panel.js');
      const { files } = await buildPanel({ clean: true });
      console.log(`panel: built ${files.length} files into dist/panel`);
    },
  },
  {
    name: 'client',
    inputs: [...shared, 'tsconfig.browser.json', 'src/client', 'scripts/build-client.ts'],
    output: 'dist/client/parley-client.js',
    run: async () => {
      const { buildClient } = await import('./build-client.js');
      await buildClient();
      console.log('client SDK: built into dist/client');
    },
  },
];

/** `node <script> <args>` in the project root, its output on ours; rejects unless it exits 0. */
function run(what: string, script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: projectRoot, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${what} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = !process.argv.includes('--if-changed');
  try {
    const skipped = await buildIfChanged(buildSteps, { root: projectRoot, stampDir, force });
    if (skipped.length > 0) console.log(`build: ${skipped.join(', ')} unchanged, not rebuilt`);
  } catch (err) {
    console.error(`build: ${(err as Error).message}`);
    process.exit(1);
  }
}
