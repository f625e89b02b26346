/**
 * Writes the random-weight models the tests and benches load through transformers.js, in its folder
 * layout (config.json, tokenizer files, onnx/*_quantized.onnx): minilm-l6-random (embeddings),
 * tiny-random-whisper (speech to text), tiny-random-vits-tts (text to speech). No download, no
 * Python: the ONNX files are encoded here (scripts/onnx/), from a seeded PRNG, so every run writes
 * the same bytes. The one input file is BERT's WordPiece vocabulary, kept in the repository
 * (test/fixtures/models/PROVENANCE.md). See scripts/TEST-MODELS.md.
 *
 *   node --import tsx scripts/make-test-models.ts <dir>
 *
 * Tests get them through test/support/test-models.ts, which writes them once into
 * test/fixtures/models/generated/ (git-ignored) and rewrites them when this generator changes.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModelFiles } from './test-models/model-files.js';
import { minilm } from './test-models/minilm.js';
import { vits } from './test-models/vits.js';
import { whisper } from './test-models/whisper.js';

/** The real BERT (uncased) vocabulary of all-MiniLM-L6-v2: one token a line. */
export const bertVocabFile = new URL('../test/fixtures/models/all-minilm-l6-v2-vocab.txt', import.meta.url);

/** The model folders, by name. */
export async function testModels(): Promise<Record<string, ModelFiles>> {
  const vocab = (await readFile(bertVocabFile, 'utf8')).split('\n');
  if (vocab.at(-1) === '') vocab.pop();
  return {
    'minilm-l6-random': minilm(vocab),
    'tiny-random-whisper': whisper(),
    'tiny-random-vits-tts': vits(),
  };
}

/** Writes every model folder under `dir`. */
export async function writeTestModels(dir: string): Promise<void> {
  for (const [name, files] of Object.entries(await testModels())) {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, name, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content instanceof Uint8Array ? content : `${JSON.stringify(content, null, 2)}\n`);
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2];
  if (out === undefined) {
    console.error('usage: node --import tsx scripts/make-test-models.ts <dir>');
    process.exitCode = 2;
  } else {
    await writeTestModels(out);
    console.log(`wrote the test models under ${out}`);
  }
}
