import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';

/** The random-weight GGUF fixtures (scripts/make-tiny-gguf.ts), written into a fresh temporary folder. */
export interface TinyGgufs {
  dir: string;
  /** Random weights: gibberish text, never a tool call by itself. */
  random: string;
  /** The same with planted transitions: every answer starts with a function call (scripts/TINY-GGUF.md). */
  toolEager: string;
  remove(): Promise<void>;
}

export async function writeTinyGgufs(): Promise<TinyGgufs> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-gguf-'));
  const random = join(dir, 'tiny-random-qwen2.gguf');
  const toolEager = join(dir, 'tiny-random-qwen2-tool-eager.gguf');
  await Promise.all([writeTinyGguf(random, 'random'), writeTinyGguf(toolEager, 'tool-eager')]);
  return { dir, random, toolEager, remove: () => rm(dir, { recursive: true, force: true }) };
}
