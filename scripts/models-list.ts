/**
 * `npm run models -- --list`: what of models/manifest.json is in MODELS_DIR, each file checked
 * as the server checks it (src/providers/models/file-check.ts): size, then sha256 where the
 * manifest pins them (where it pins no sha256, the size alone, and the line says so). Then the
 * .gguf files of the operator's own under MODELS_DIR, which `local-llama` takes by their path.
 */
import { join } from 'node:path';
import { checkFile, type FileCheck } from '../src/providers/models/file-check.js';
import { FileDigests } from '../src/providers/models/file-digests.js';
import { findGgufFiles } from '../src/providers/models/gguf-files.js';
import type { ManifestModel, ModelManifest } from '../src/providers/models/model-manifest.js';

export interface ModelList {
  lines: string[];
  /** Models or own GGUF files present but invalid (wrong size or sha256, not a GGUF file). */
  invalid: number;
}

export async function listModels(
  manifest: ModelManifest,
  modelsDir: string,
  digests = new FileDigests(),
): Promise<ModelList> {
  const lines: string[] = [];
  let invalid = 0;
  for (const model of manifest.models) {
    const checks = await Promise.all(
      model.files.map((f) => checkFile(join(modelsDir, model.id, f.path), f.path, f, digests)),
    );
    const [state, detail] = stateOf(model, checks);
    if (state === 'invalid') invalid += 1;
    lines.push(
      `${model.id.padEnd(32)} ${model.task.padEnd(10)} ${(model.default ? 'default' : '').padEnd(8)} ${state.padEnd(9)} ${detail}`,
    );
  }

  const manifestFiles = new Set(manifest.models.flatMap((m) => m.files.map((f) => `${m.id}/${f.path}`)));
  const own = (await findGgufFiles(modelsDir)).filter((id) => !manifestFiles.has(id));
  if (own.length === 0) {
    lines.push(
      `GGUF files of your own under ${modelsDir}: none (a .gguf file there is a local-llama model, by its path)`,
    );
    return { lines, invalid };
  }
  lines.push(`GGUF files of your own under ${modelsDir} (local-llama model ids):`);
  for (const id of own) {
    const check = await checkFile(join(modelsDir, id), id, undefined, digests);
    if (check.state === 'invalid') invalid += 1;
    const line =
      check.state === 'ok'
        ? `installed ${formatBytes(check.size)}`
        : check.state === 'invalid'
          ? `invalid   ${check.problem}; replace it with a GGUF model file or remove it`
          : 'missing   (removed while listing)';
    lines.push(`${id.padEnd(52)} ${line}`);
  }
  return { lines, invalid };
}

/** A model's state and what to say about it: how far it was verified, or what is wrong and the fix. */
function stateOf(model: ManifestModel, checks: FileCheck[]): [string, string] {
  const problems = checks.flatMap((c) => (c.state === 'invalid' ? [c.problem] : []));
  if (problems.length > 0)
    return ['invalid', `${problems.join('; ')}; re-download it with npm run models -- --only ${model.id}`];
  const ok = checks.flatMap((c) => (c.state === 'ok' ? [c] : []));
  if (ok.length === 0) return ['missing', `npm run models -- --only ${model.id} downloads it`];
  if (ok.length < checks.length) {
    const missing = model.files.filter((_, i) => checks[i]!.state === 'missing').map((f) => f.path);
    return ['partial', `missing ${missing.join(', ')}; npm run models -- --only ${model.id} completes it`];
  }
  const size = formatBytes(ok.reduce((sum, c) => sum + c.size, 0));
  const count = (v: string) => ok.filter((c) => c.verified === v).length;
  const [sha, sizeOnly, none] = [count('sha256'), count('size'), count('none')];
  if (sha === ok.length) return ['installed', `${size}, sha256 verified`];
  if (sizeOnly === ok.length) return ['installed', `${size}, size verified (no sha256 pinned in the manifest yet)`];
  if (none === ok.length) return ['installed', `${size}, not verified (no size or sha256 pinned in the manifest yet)`];
  return [
    'installed',
    `${size}, sha256 verified for ${sha} file(s), size only for ${sizeOnly}, nothing pinned for ${none}`,
  ];
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}
