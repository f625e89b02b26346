/**
 * Runs a build step only when its inputs changed: the step's input files (every file under its
 * folders, by path and content) give one sha256, kept in `<stampDir>/<name>.sha256` once the step
 * has succeeded. A step whose hash matches the kept one and whose output is there is skipped;
 * `force` runs it anyway (npm run build) and keeps the new hash too. A step that fails keeps no
 * hash, so the next run builds it again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface BuildStep {
  /** Names the step in the output and its hash file. */
  name: string;
  /** Files and folders (relative to the root) whose contents the output is made from. */
  inputs: string[];
  /** A file the step writes (relative to the root): when it is missing the step runs. */
  output: string;
  run(): Promise<void>;
}

export interface BuildOptions {
  root: string;
  /** Where the hashes are kept (dist/.build-inputs). */
  stampDir: string;
  /** Run every step whatever its hash. */
  force: boolean;
}

/** Runs the steps in order, each only when needed (or forced); resolves with the names of those skipped. */
export async function buildIfChanged(steps: readonly BuildStep[], options: BuildOptions): Promise<string[]> {
  const skipped: string[] = [];
  for (const step of steps) {
    const stamp = join(options.stampDir, `${step.name}.sha256`);
    const hash = inputsHash(options.root, step.inputs);
    const kept = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : undefined;
    if (!options.force && kept === hash && existsSync(join(options.root, step.output))) {
      skipped.push(step.name);
      continue;
    }
    // Gone while the step runs: a build stopped half-way is not taken for a finished one.
    rmSync(stamp, { force: true });
    await step.run();
    mkdirSync(options.stampDir, { recursive: true });
    writeFileSync(stamp, `${hash}\n`);
  }
  return skipped;
}

/** sha256 over every input file's path (relative to `root`) and content, in path order; a missing input counts too. */
export function inputsHash(root: string, inputs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const input of [...inputs].sort()) {
    const files = filesOf(join(root, input));
    if (files.length === 0) hash.update(`missing ${input}\0`);
    for (const file of files) {
      hash.update(`${relative(root, file)}\0`);
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

/** The files at `path`: itself, or every file under it (sorted); none when it does not exist. */
function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(path, entry))
    .filter((file) => statSync(file).isFile())
    .sort();
}
