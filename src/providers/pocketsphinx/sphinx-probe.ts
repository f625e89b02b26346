import { access, constants } from 'node:fs/promises';
import koffi from 'koffi';
import { defaultLibraries } from './sphinx-library.js';
import { modelFiles } from './sphinx-options.js';

const fix = 'install the Debian packages libpocketsphinx3 and pocketsphinx-en-us';

/**
 * Why PocketSphinx cannot run here, or null when it can: its C libraries load and the model's
 * files are readable. Loads no model (that is the first utterance's job, or `warm`).
 */
export async function pocketsphinxProblem(modelDir: string, libraries = defaultLibraries): Promise<string | null> {
  for (const file of [libraries.sphinxbase, libraries.pocketsphinx]) {
    try {
      koffi.load(file);
    } catch (err) {
      return `${file} does not load (${err instanceof Error ? err.message : String(err)}): ${fix}`;
    }
  }
  const files = modelFiles(modelDir);
  for (const path of [files.hmm, files.lm, files.dict]) {
    try {
      await access(path, constants.R_OK);
    } catch {
      return `model file ${path} is missing: ${fix}, or set PARLEY_POCKETSPHINX_MODEL_DIR`;
    }
  }
  return null;
}
