/**
 * `npm run bench`: runs every benchmark, one after the other, each in its own process
 * (`node --import tsx bench/<file>`). A benchmark is any bench/*.ts file but this one and files
 * whose name starts with `.` or `_`; helpers live in bench/lib/. Each writes its own
 * bench/results/<name>.{json,md}. A failing bench does not stop the others; the exit code is 1
 * when any failed. dist/ is built first (only the steps whose inputs changed), as `npm start` does:
 * benches that start the real entry point (scale, soak) run dist/src/main.js.
 *
 *   npm run bench                  # all
 *   npm run bench -- admin-api vad # only those whose file name contains one of the arguments
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from '../scripts/build-if-changed.js';
import { buildSteps, stampDir } from '../scripts/build.js';
import { projectRoot } from '../src/project/project-root.js';

const thisFile = fileURLToPath(import.meta.url);
const benchDir = dirname(thisFile);

export function listBenches(): string[] {
  return readdirSync(benchDir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && e.name !== basename(thisFile) && !/^[._]/.test(e.name))
    .map((e) => e.name)
    .sort();
}

const all = listBenches();
const filters = process.argv.slice(2);
const selected = all.filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
if (selected.length === 0) {
  console.error(`bench: nothing matches ${filters.join(', ') || '(no filter)'}; benches: ${all.join(', ')}`);
  process.exit(1);
}

await buildIfChanged(buildSteps, { root: projectRoot, stampDir, force: false });

const failed: string[] = [];
for (const file of selected) {
  console.log(`\n=== bench/${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed.push(file);
    console.error(`bench: ${file} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
  }
}
if (failed.length > 0) {
  console.error(`bench: ${failed.length} of ${selected.length} failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nbench: ${selected.length} done; results in bench/results/`);
