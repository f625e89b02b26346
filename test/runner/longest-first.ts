import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per test file (path from the repository root), as the last measured run took them. */
export const timingsFile = new URL('timings.json', import.meta.url);

/**
 * The order the suite's files start in: lane by lane (`sequence.groupOrder`), and in a lane the
 * longest file first, by the seconds `test/runner/timings.json` gives it (`npm run test:timings`
 * writes them from a run's JSON report). A lane runs its files a few at a time, so a long file
 * started last runs on alone: the 60 s people-turns file, left to the end of a fresh clone's run
 * (vitest's own order without its cache is by file size), made the two-at-a-time lane 60 s
 * longer. A file the timings do not name yet (a new one) starts first, as vitest starts unknown
 * files first. The committed timings make the order the same on every machine, CI's fresh clone
 * included.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(timingsFile, 'utf8')) as Record<string, number>;
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => seconds[relative(root, spec.moduleId)] ?? Infinity;
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        known(b) - known(a) ||
        a.moduleId.localeCompare(b.moduleId),
    );
  }
}
