import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import type { FileDigests } from './file-digests.js';
import type { FilePin } from './model-manifest.js';

/** What one model file on disk is: absent, present but not to be loaded, or good (and how far it was verified). */
export type FileCheck =
  | { state: 'missing' }
  | { state: 'invalid'; size: number | null; problem: string }
  | {
      state: 'ok';
      size: number;
      /** sha256: size and hash match the manifest; size: only the size is pinned; none: nothing is. */
      verified: 'sha256' | 'size' | 'none';
    };

const ggufMagic = Buffer.from('GGUF', 'latin1');

/**
 * Checks the file at `path` (`name`: how problems name it) against its manifest pin: the size
 * first (a stat), then the sha256 (hashed once per file version by `digests`); a `.gguf` file
 * must begin with the GGUF magic, any other must be readable. Where the manifest pins no sha256
 * the size alone is checked, and where it pins nothing, nothing is.
 */
export async function checkFile(
  path: string,
  name: string,
  pin: FilePin | undefined,
  digests: FileDigests,
): Promise<FileCheck> {
  let stats;
  try {
    stats = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'missing' };
    return { state: 'invalid', size: null, problem: `${name} cannot be read (${code ?? String(err)})` };
  }
  const invalid = (problem: string): FileCheck => ({ state: 'invalid', size: stats.size, problem });
  if (!stats.isFile()) return invalid(`${name} is not a file`);
  if (pin?.size != null && stats.size !== pin.size)
    return invalid(`${name} is ${stats.size} bytes, models/manifest.json pins ${pin.size}`);
  const unreadable = name.toLowerCase().endsWith('.gguf')
    ? await ggufProblem(path, name)
    : await readProblem(path, name);
  if (unreadable !== null) return invalid(unreadable);
  if (pin?.sha256 != null) {
    let digest: string;
    try {
      digest = await digests.sha256(path, stats);
    } catch (err) {
      return invalid(`${name} could not be hashed (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    if (digest !== pin.sha256) return invalid(`${name} has sha256 ${digest}, models/manifest.json pins ${pin.sha256}`);
    return { state: 'ok', size: stats.size, verified: 'sha256' };
  }
  return { state: 'ok', size: stats.size, verified: pin?.size != null ? 'size' : 'none' };
}

/** Why the file is not a readable GGUF model (its first 4 bytes are not `GGUF`), or null. */
async function ggufProblem(path: string, name: string): Promise<string | null> {
  const head = Buffer.alloc(ggufMagic.length);
  let bytesRead: number;
  try {
    const file = await open(path, 'r');
    try {
      ({ bytesRead } = await file.read(head, 0, head.length, 0));
    } finally {
      await file.close();
    }
  } catch (err) {
    return `${name} is not readable (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  return bytesRead === head.length && head.equals(ggufMagic)
    ? null
    : `${name} is not a GGUF file (it does not begin with the bytes GGUF)`;
}

async function readProblem(path: string, name: string): Promise<string | null> {
  return access(path, constants.R_OK).then(
    () => null,
    () => `${name} is not readable`,
  );
}
