import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bertVocabFile, writeTestModels } from '../../scripts/make-test-models.js';

/**
 * The random-weight models of the tests and benches (scripts/make-test-models.ts), written into
 * the repository's git-ignored test/fixtures/models/generated/ on first use and rewritten when the
 * generator's sources change: nothing is read from outside the repository.
 */
export const generatedModelsDir = fileURLToPath(new URL('../fixtures/models/generated', import.meta.url));

const scripts = new URL('../../scripts/', import.meta.url);
const stampFile = '.sources-sha256';

/** The generator's inputs: its scripts and the vocabulary it reads. */
async function sourceFiles(): Promise<URL[]> {
  const inFolder = async (folder: string) =>
    (await readdir(new URL(folder, scripts)))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => new URL(`${folder}${f}`, scripts));
  const top = ['make-test-models.ts', 'seeded-random.ts', 'byte-alphabet.ts'].map((f) => new URL(f, scripts));
  return [...top, ...(await inFolder('onnx/')), ...(await inFolder('test-models/')), bertVocabFile];
}

async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await sourceFiles())
    hash.update(file.pathname.split('/').slice(-2).join('/')).update(await readFile(file));
  return hash.digest('hex');
}

/**
 * Writes the models unless the folder already holds this generator's output. A new set is written
 * beside the folder and renamed into place, so a reader never sees half a set.
 */
async function generate(): Promise<string> {
  const want = await sourcesHash();
  const stamp = () => readFile(join(generatedModelsDir, stampFile), 'utf8').catch(() => null); // none: not written yet
  if ((await stamp()) === want) return generatedModelsDir;
  const fresh = `${generatedModelsDir}.${process.pid}.tmp`;
  await rm(fresh, { recursive: true, force: true });
  await writeTestModels(fresh);
  await writeFile(join(fresh, stampFile), want);
  await rm(generatedModelsDir, { recursive: true, force: true });
  try {
    await rename(fresh, generatedModelsDir);
  } catch (err) {
    // Another process (a bench, a second test run) put the same set in place first: use theirs.
    await rm(fresh, { recursive: true, force: true });
    if ((await stamp()) !== want) throw err;
  }
  return generatedModelsDir;
}

let generated: Promise<string> | undefined;

/**
 * MODELS_DIR for tests and benches: the environment's MODELS_DIR when set (e.g. real models),
 * otherwise the generated models, written first if missing or out of date.
 */
export function testModelsDir(): Promise<string> {
  const fromEnv = process.env['MODELS_DIR'];
  if (fromEnv !== undefined) return Promise.resolve(fromEnv);
  generated ??= generate();
  return generated;
}
