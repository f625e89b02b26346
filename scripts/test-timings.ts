/**
 * Writes test/runner/timings.json, the seconds each test file took, from a vitest JSON report:
 * the order the suite starts its files in (test/runner/longest-first.ts). Run after a whole
 * suite's run on an idle machine:
 *
 *   npm test -- --reporter=default --reporter=json --outputFile.json=/tmp/report.json
 *   npm run test:timings -- /tmp/report.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../src/project/project-root.js';
import { timingsFile } from '../test/runner/longest-first.js';

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const path = process.argv[2];
if (path === undefined) {
  console.error('usage: npm run test:timings -- <vitest JSON report>');
  process.exit(2);
}
const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
const seconds = Object.fromEntries(
  report.testResults
    .map((f) => [relative(projectRoot, f.name), Math.round((f.endTime - f.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(timingsFile, `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test timings: ${Object.keys(seconds).length} files written to test/runner/timings.json`);
