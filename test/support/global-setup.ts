import { buildIfChanged } from '../../scripts/build-if-changed.js';
import { buildSteps, stampDir } from '../../scripts/build.js';
import { projectRoot } from '../../src/project/project-root.js';
import { testModelsDir } from './test-models.js';

/**
 * Vitest's globalSetup, before any test file runs: writes the generated test models, and builds
 * dist/ as `npm start` does (only the steps whose inputs changed), so tests that start the real
 * entry point run what `npm start` runs (test/support/main-process.ts).
 */
export default async function setup(): Promise<void> {
  await testModelsDir();
  const skipped = await buildIfChanged(buildSteps, { root: projectRoot, stampDir, force: false });
  if (skipped.length < buildSteps.length) console.log(`test setup: built dist/ (${skipped.length} steps unchanged)`);
}
