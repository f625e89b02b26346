import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listModels } from '../../scripts/models-list.js';
import { tinyGguf } from '../../scripts/make-tiny-gguf.js';
import type { ManifestModel } from '../../src/providers/models/model-manifest.js';
import { projectRoot } from '../../src/project/project-root.js';

/** `npm run models -- --list`: every manifest model checked as the server checks it, then the own GGUF files. */

const gguf = tinyGguf('random');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-models-list-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(relative: string, bytes: Buffer | string): Promise<void> {
  await mkdir(dirname(join(dir, relative)), { recursive: true });
  await writeFile(join(dir, relative), bytes);
}

function model(id: string, files: ManifestModel['files']): ManifestModel {
  return {
    id,
    task: 'llm',
    default: false,
    description: '',
    license: 'mit',
    source: { hub: 'huggingface', repo: id, revision: 'main' },
    files,
  };
}

/** Runs the real command line; resolves with its exit code and output. */
function runList(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/models.ts', '--list'],
      { cwd: projectRoot, env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : (err.code as number), stdout, stderr }),
    );
  });
}

describe('npm run models -- --list', () => {
  it('says invalid, with the fix, for a pinned file of the wrong size, and lists the own GGUF files with their size', async () => {
    await put('Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf', 'GGUF');
    await put('mine/tiny.gguf', gguf);
    const { code, stdout, stderr } = await runList({ MODELS_DIR: dir });
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    expect(lines.find((l) => l.startsWith('Qwen/'))).toMatch(
      /^Qwen\/Qwen2\.5-0\.5B-Instruct-GGUF +llm +default +invalid +qwen2\.5-0\.5b-instruct-q4_k_m\.gguf is 4 bytes, models\/manifest\.json pins 491400032; re-download it with npm run models -- --only Qwen\/Qwen2\.5-0\.5B-Instruct-GGUF$/,
    );
    expect(lines.find((l) => l.startsWith('Xenova/whisper-tiny.en'))).toMatch(/ +stt +default +missing +/);
    expect(stdout).toContain(`GGUF files of your own under ${dir} (local-llama model ids):`);
    expect(lines.find((l) => l.startsWith('mine/tiny.gguf'))).toMatch(/^mine\/tiny\.gguf +installed 452\.8 KiB$/);
    expect(stderr).toContain('models: 1 invalid (never loaded): the fix is on each line');
  });

  it('exits 0 when nothing is invalid', async () => {
    const { code, stdout } = await runList({ MODELS_DIR: dir });
    expect(code).toBe(0);
    expect(stdout).toContain(`GGUF files of your own under ${dir}: none`);
  });
});

describe('listModels', () => {
  it('says how far each installed model was verified: sha256, size only, or nothing pinned', async () => {
    await put('a/m.gguf', gguf);
    await put('b/m.gguf', gguf);
    await put('c/m.gguf', gguf);
    await put('d/m.gguf', gguf);
    await put('e/config.json', '{}');
    const { lines, invalid } = await listModels(
      {
        version: 1,
        models: [
          model('a', [{ path: 'm.gguf', size: gguf.length, sha256: sha256(gguf) }]),
          model('b', [{ path: 'm.gguf', size: gguf.length, sha256: null }]),
          model('c', [{ path: 'm.gguf', size: null, sha256: null }]),
          model('d', [{ path: 'm.gguf', size: gguf.length, sha256: sha256('other') }]),
          model('e', [
            { path: 'config.json', size: null, sha256: null },
            { path: 'onnx/model.onnx', size: null, sha256: null },
          ]),
          model('f', [{ path: 'm.gguf', size: 1, sha256: null }]),
        ],
      },
      dir,
    );
    const line = (id: string) => lines.find((l) => l.startsWith(`${id} `))!.replace(/ +/g, ' ');
    expect(line('a')).toBe('a llm installed 452.8 KiB, sha256 verified');
    expect(line('b')).toBe('b llm installed 452.8 KiB, size verified (no sha256 pinned in the manifest yet)');
    expect(line('c')).toBe('c llm installed 452.8 KiB, not verified (no size or sha256 pinned in the manifest yet)');
    expect(line('d')).toBe(
      `d llm invalid m.gguf has sha256 ${sha256(gguf)}, models/manifest.json pins ${sha256('other')}; re-download it with npm run models -- --only d`,
    );
    expect(line('e')).toBe('e llm partial missing onnx/model.onnx; npm run models -- --only e completes it');
    expect(line('f')).toBe('f llm missing npm run models -- --only f downloads it');
    expect(invalid).toBe(1);
    // The manifest's own files are not listed again as the operator's.
    expect(lines.at(-1)).toBe(
      `GGUF files of your own under ${dir}: none (a .gguf file there is a local-llama model, by its path)`,
    );
  });
});
