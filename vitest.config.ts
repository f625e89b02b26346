import { defineConfig } from 'vitest/config';
import LongestFirst from './test/runner/longest-first.js';

/**
 * The suite's files in two lanes (vitest runs one project's files, then the other's). Most files
 * spend their time waiting on real time (audio paced at real-time speed, Redis, timers, child
 * processes), so they run four at a time (`waiting`). Files that keep a core busy while timing
 * matters to what they check (Chromium, the phone echo guard, real recognisers on real-time audio,
 * a cluster of processes) run two at a time (`busy`): one per core of a 2-core box.
 *
 * In a lane the longest files start first (test/runner/longest-first.ts, from the committed
 * test/runner/timings.json), so no long file is left to run on alone at a lane's end. The waiting
 * lane runs its files without a fresh module graph each (`isolate: false`): importing Parley's
 * modules anew for each of ~180 files cost ~200 s of the lane's CPU; no test file changes a module's
 * state (no `vi.mock`, no fake timers, no `process.env` writes). The busy lane does the same
 * (~60 s of its imports). `vad-memory.test.ts` diffs heap snapshots, which a heap other files
 * filled makes slow (60 s against 8 s): it runs in a process of its own (`alone`) beside the
 * waiting lane, and so does `recordings.test.ts` (below).
 *
 * A test that fails is run once more (`retry: 1`): many pace audio in real time or race real
 * processes on a shared box, where a stall of the machine can move a pause. A test that passes only on its
 * second try is still listed by name, with its first failure, at the end of `.ci/run`, so a real
 * regression (it fails both times) stays red and a flaky one stays visible.
 */
const busy = [
  'test/browser/**/*.test.ts',
  'test/e2e/voice-twilio-echo.test.ts',
  'test/e2e/voice-real-*.test.ts',
  'test/e2e/voice-pocketsphinx.test.ts',
  'test/integration/pocketsphinx-vocabulary.test.ts',
  'test/integration/providers-pocketsphinx.test.ts',
  'test/e2e/voice-first-utterance.test.ts',
  'test/e2e/voice-people-*.test.ts',
  'test/e2e/voice-human-*.test.ts',
  'test/integration/statement-end-people.test.ts',
  'test/integration/livekit-real-speech.test.ts',
  'test/integration/agent-tests.test.ts',
  'test/integration/cluster.test.ts',
  'test/integration/recordings-*.test.ts',
];
/**
 * Files that need a process of their own: a heap snapshot's diff is slow in a heap other files
 * filled; the recording's cut at a barge-in is checked to 40 ms, and in a busy-lane worker that had
 * run the lane's other files it moved by 1.3 s (both tries, in two whole runs on a slow 2-core box),
 * while alone, or beside two cores' worth of busy loops, it holds.
 */
const alone = ['test/unit/vad-memory.test.ts', 'test/integration/recordings.test.ts'];

const shared = {
  // Writes the random-weight test models (scripts/make-test-models.ts) before any file runs.
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
  retry: 1,
  // A failed comparison prints the whole of both sides (the fault suite compares one summary object).
  chaiConfig: { truncateThreshold: 0 },
};

export default defineConfig({
  test: {
    reporters: ['default'],
    // read from the root config only (a project's own `sequencer` is ignored)
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: { ...shared, name: 'busy', include: busy, maxWorkers: 2, isolate: false, sequence: { groupOrder: 1 } },
      },
      { test: { ...shared, name: 'alone', include: alone, maxWorkers: 1, sequence: { groupOrder: 0 } } },
      {
        test: {
          ...shared,
          name: 'waiting',
          include: ['test/**/*.test.ts'],
          exclude: [...busy, ...alone],
          maxWorkers: 4,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
