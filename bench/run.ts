/**
 * `npm run bench`: runs every benchmark listed below, one after the other, each in its own
 * process (`node --import tsx bench/<file>`), and stops at the first that fails. Each bench writes
 * its own bench/results/<name>.{json,md}. Add a new bench by adding its file to `benches`.
 *
 *   npm run bench                  # all
 *   npm run bench -- admin-api     # only those whose file name contains one of the arguments
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benches: readonly string[] = ['admin-api.ts', 'chat.ts', 'voice.ts', 'vad.ts', 'rag.ts'];

const benchDir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const selected = benches.filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
if (selected.length === 0) {
  console.error(`bench: nothing matches ${filters.join(', ')}; benches: ${benches.join(', ')}`);
  process.exit(1);
}

for (const file of selected) {
  const path = join(benchDir, file);
  if (!existsSync(path)) {
    console.error(`bench: ${file} is listed in bench/run.ts but does not exist`);
    process.exit(1);
  }
  console.log(`\n=== bench/${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`bench: ${file} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
    process.exit(result.status ?? 1);
  }
}
