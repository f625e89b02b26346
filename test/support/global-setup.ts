import { testModelsDir } from './test-models.js';

/** Vitest's globalSetup: writes the generated test models once, before any test file runs. */
export default async function setup(): Promise<void> {
  await testModelsDir();
}
