import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFile } from '../../src/providers/models/file-check.js';
import { FileDigests, sha256OfFile } from '../../src/providers/models/file-digests.js';
import { findGgufFiles } from '../../src/providers/models/gguf-files.js';
import { ggufModelIdProblem } from '../../src/schemas/gguf-model-id.js';

/** A small file that starts like a GGUF model, with its size and sha256. */
const gguf = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(60, 7)]);
const ggufSha = createHash('sha256').update(gguf).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-model-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** FileDigests over the real hash, counting how often a file is read through. */
function countingDigests(): { digests: FileDigests; hashed: string[] } {
  const hashed: string[] = [];
  const digests = new FileDigests((path) => {
    hashed.push(path);
    return sha256OfFile(path);
  });
  return { digests, hashed };
}

describe('FileDigests', () => {
  it('hashes a file once per (path, size, mtime) and again when it changes', async () => {
    const path = join(dir, 'm.gguf');
    await writeFile(path, gguf);
    const { digests, hashed } = countingDigests();
    const first = await stat(path);
    expect(await digests.sha256(path, first)).toBe(ggufSha);
    expect(await digests.sha256(path, await stat(path))).toBe(ggufSha);
    expect(hashed).toEqual([path]);

    // Same bytes, a new mtime: another version of the file, hashed again.
    await utimes(path, new Date(), new Date(first.mtimeMs + 5_000));
    expect(await digests.sha256(path, await stat(path))).toBe(ggufSha);
    expect(hashed).toEqual([path, path]);

    // New content and size.
    await writeFile(path, 'other');
    expect(await digests.sha256(path, await stat(path))).toBe(createHash('sha256').update('other').digest('hex'));
    expect(hashed).toHaveLength(3);
  });

  it('shares one computation between callers asking at once, and forgets a failure', async () => {
    const { digests, hashed } = countingDigests();
    const missing = join(dir, 'gone.gguf');
    const version = { size: 1, mtimeMs: 1 };
    const both = await Promise.allSettled([digests.sha256(missing, version), digests.sha256(missing, version)]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(hashed).toEqual([missing]);
    await writeFile(missing, gguf);
    expect(await digests.sha256(missing, version)).toBe(ggufSha);
    expect(hashed).toEqual([missing, missing]);
  });
});

describe('checkFile', () => {
  const check = (name: string, pin?: { size: number | null; sha256: string | null }) =>
    checkFile(join(dir, name), name, pin, new FileDigests());

  it('reports a missing file as missing', async () => {
    expect(await check('none.gguf', { size: 64, sha256: ggufSha })).toEqual({ state: 'missing' });
  });

  it('verifies size then sha256 where both are pinned', async () => {
    await writeFile(join(dir, 'm.gguf'), gguf);
    expect(await check('m.gguf', { size: 64, sha256: ggufSha })).toEqual({ state: 'ok', size: 64, verified: 'sha256' });
    expect(await check('m.gguf', { size: 65, sha256: ggufSha })).toEqual({
      state: 'invalid',
      size: 64,
      problem: 'm.gguf is 64 bytes, models/manifest.json pins 65',
    });
    const wrong = 'f'.repeat(64);
    expect(await check('m.gguf', { size: 64, sha256: wrong })).toEqual({
      state: 'invalid',
      size: 64,
      problem: `m.gguf has sha256 ${ggufSha}, models/manifest.json pins ${wrong}`,
    });
  });

  it('checks the size alone where no sha256 is pinned, and nothing where nothing is', async () => {
    await writeFile(join(dir, 'm.gguf'), gguf);
    expect(await check('m.gguf', { size: 64, sha256: null })).toEqual({ state: 'ok', size: 64, verified: 'size' });
    expect(await check('m.gguf', { size: null, sha256: null })).toEqual({ state: 'ok', size: 64, verified: 'none' });
    expect(await check('m.gguf')).toEqual({ state: 'ok', size: 64, verified: 'none' });
  });

  it('takes a .gguf file only when it begins with the GGUF magic', async () => {
    await writeFile(join(dir, 'text.gguf'), 'not a model at all');
    await writeFile(join(dir, 'short.gguf'), 'GG');
    for (const name of ['text.gguf', 'short.gguf'])
      expect(await check(name)).toMatchObject({
        state: 'invalid',
        problem: `${name} is not a GGUF file (it does not begin with the bytes GGUF)`,
      });
    await mkdir(join(dir, 'folder.gguf'));
    expect(await check('folder.gguf')).toMatchObject({ state: 'invalid', problem: 'folder.gguf is not a file' });
  });
});

describe('findGgufFiles', () => {
  it('lists .gguf files by relative path, links to files included, hidden and too-deep folders not', async () => {
    await mkdir(join(dir, 'a', 'b', 'c', 'd', 'e'), { recursive: true });
    await mkdir(join(dir, '.cache'));
    await writeFile(join(dir, 'top.GGUF'), gguf);
    await writeFile(join(dir, 'a', 'b', 'c', 'd', 'deep.gguf'), gguf);
    await writeFile(join(dir, 'a', 'b', 'c', 'd', 'e', 'too-deep.gguf'), gguf);
    await writeFile(join(dir, '.cache', 'hidden.gguf'), gguf);
    await writeFile(join(dir, 'a', 'notes.txt'), 'x');
    const elsewhere = await mkdtemp(join(tmpdir(), 'parley-model-elsewhere-'));
    try {
      await writeFile(join(elsewhere, 'kept.gguf'), gguf);
      await symlink(join(elsewhere, 'kept.gguf'), join(dir, 'a', 'linked.gguf'));
      expect(await findGgufFiles(dir)).toEqual(['a/b/c/d/deep.gguf', 'a/linked.gguf', 'top.GGUF']);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('finds none in a folder that does not exist', async () => {
    expect(await findGgufFiles(join(dir, 'nowhere'))).toEqual([]);
  });
});

describe('ggufModelIdProblem', () => {
  it('takes a relative path under MODELS_DIR ending in .gguf', () => {
    expect(ggufModelIdProblem('llama-3.2-1b-q4_k_m.gguf')).toBeNull();
    expect(ggufModelIdProblem('bartowski/Llama-3.2-1B/model.Q4_K_M.GGUF')).toBeNull();
  });

  it('names what is wrong with any other', () => {
    expect(ggufModelIdProblem('llama3')).toBe('a model file must end in .gguf');
    expect(ggufModelIdProblem('/srv/models/x.gguf')).toContain('an absolute path');
    expect(ggufModelIdProblem('C:/models/x.gguf')).toContain('an absolute path');
    expect(ggufModelIdProblem('../x.gguf')).toContain('must stay under MODELS_DIR');
    expect(ggufModelIdProblem('a/./x.gguf')).toContain('must stay under MODELS_DIR');
    expect(ggufModelIdProblem('a//x.gguf')).toContain('must stay under MODELS_DIR');
    expect(ggufModelIdProblem('a\\x.gguf')).toBe('use / between folders, not \\');
    expect(ggufModelIdProblem('a\nx.gguf')).toBe('the path holds a control character');
  });
});
