import { join, resolve } from 'node:path';
import type { z } from 'zod';
import type { localModelSchema } from '../../schemas/preset.js';
import { providers as catalog, type ProviderInfo } from '../../schemas/provider-catalog.js';
import { checkFile, type FileCheck } from '../models/file-check.js';
import { FileDigests } from '../models/file-digests.js';
import { findGgufFiles } from '../models/gguf-files.js';
import { pinOf, type ModelManifest } from '../models/model-manifest.js';
import { roundMs } from './describe-error.js';
import type { ModelFolders } from './model-folders.js';
import { SettledCache } from './settled-cache.js';

/** One model found under MODELS_DIR: installed (usable) or invalid (never loaded), with its size and problem. */
export type LocalModelState = z.infer<typeof localModelSchema>;

/** The catalog providers whose models live under MODELS_DIR (pocketsphinx's model is Debian's). */
export function isModelProvider(info: ProviderInfo): boolean {
  return info.kind === 'local' && info.provider !== 'pocketsphinx';
}

const keyOf = (info: Pick<ProviderInfo, 'capability' | 'provider'>) => `${info.capability}:${info.provider}`;

/** What was on disk at one scan, per model provider; `key` changes exactly when what was found does. */
export class ModelSnapshot {
  readonly key: string;

  constructor(
    private readonly found: ReadonlyMap<string, readonly LocalModelState[]>,
    /** How long the scan took (the local providers' latency in /health/providers). */
    readonly scanMs: number,
  ) {
    this.key = JSON.stringify([...found]);
  }

  /** The provider's models found on disk, installed or invalid: catalog models first, then own GGUF files. */
  of(info: Pick<ProviderInfo, 'capability' | 'provider'>): readonly LocalModelState[] {
    return this.found.get(keyOf(info)) ?? [];
  }

  /** One model's state, or undefined when it is not on disk. */
  model(info: Pick<ProviderInfo, 'capability' | 'provider'>, modelId: string): LocalModelState | undefined {
    return this.of(info).find((m) => m.model === modelId);
  }
}

/**
 * The one source of local model status: readiness, the built-in preset, `presets/available`,
 * `/health/providers` and the loader of `local-llama` all read the same snapshot. A snapshot is
 * reused for `scanMs` after it is made, so a model copied in, changed or removed is seen by all of
 * them together, within `scanMs`, without a restart. A scan stats every catalog model's files and
 * lists the .gguf files under MODELS_DIR; files the manifest pins are checked for size, then
 * sha256 (hashed once per path, size and mtime: `FileDigests`), so only a new or changed pinned
 * file costs a hash.
 */
export class ModelInventory {
  private readonly snapshots: SettledCache<ModelSnapshot>;

  constructor(
    private readonly folders: ModelFolders,
    private readonly manifest: ModelManifest,
    scanMs: number,
    private readonly digests = new FileDigests(),
  ) {
    this.snapshots = new SettledCache(scanMs);
  }

  /** The current snapshot (scanned now, or the last one when it is under `scanMs` old). */
  current(): Promise<ModelSnapshot> {
    return this.snapshots.get(() => this.scan());
  }

  /**
   * Why `modelId`, one of the operator's own GGUF files, cannot be used now (read from disk, not
   * the snapshot: a preset saved right after the copy sees the file): no such file (naming the
   * .gguf files there are), or not a GGUF file. Null when it can, and for catalog ids.
   */
  async ownFileProblem(info: ProviderInfo, modelId: string): Promise<string | null> {
    if (info.anyGgufFile !== true || info.models.includes(modelId)) return null;
    const path = this.folders.file(info, modelId);
    if (path === undefined) return null;
    const check = await checkFile(path, modelId, undefined, this.digests);
    if (check.state === 'invalid') return check.problem;
    if (check.state === 'ok') return null;
    const there = (await this.ownGgufFiles(info)).map((m) => m.model);
    return `no file MODELS_DIR/${modelId} (${path}); .gguf files under MODELS_DIR: ${there.length > 0 ? there.join(', ') : 'none'}`;
  }

  private async scan(): Promise<ModelSnapshot> {
    const start = performance.now();
    const found = await Promise.all(
      catalog.filter(isModelProvider).map(async (info) => [keyOf(info), await this.scanProvider(info)] as const),
    );
    return new ModelSnapshot(new Map(found), roundMs(performance.now() - start));
  }

  private async scanProvider(info: ProviderInfo): Promise<LocalModelState[]> {
    const catalogModels = await Promise.all(info.models.map((id) => this.catalogModel(info, id)));
    const own = info.anyGgufFile === true ? await this.ownGgufFiles(info) : [];
    return [...catalogModels.filter((m) => m !== undefined), ...own];
  }

  /** A catalog model: its single file, or its transformers.js folder; undefined when absent. */
  private async catalogModel(info: ProviderInfo, id: string): Promise<LocalModelState | undefined> {
    const fix = `re-download it with npm run models -- --only ${id}`;
    const file = info.modelFiles?.[id];
    if (file !== undefined) {
      const check = await checkFile(
        join(this.folders.dir(id), file),
        file,
        pinOf(this.manifest, id, file),
        this.digests,
      );
      return stateOf(id, check, fix);
    }
    if (!(await this.folders.looksInstalled(id))) return undefined;
    const unreadable = await this.folders.unreadable(id);
    if (unreadable !== null)
      return { model: id, status: 'invalid', size_bytes: null, problem: `${unreadable}; ${fix}` };
    // Pinned files present in the folder must match; the download's own files decide the rest.
    const pinned =
      this.manifest.models.find((m) => m.id === id)?.files.filter((f) => f.size !== null || f.sha256 !== null) ?? [];
    for (const f of pinned) {
      const check = await checkFile(join(this.folders.dir(id), f.path), f.path, f, this.digests);
      if (check.state === 'invalid')
        return { model: id, status: 'invalid', size_bytes: null, problem: `${check.problem}; ${fix}` };
    }
    return { model: id, status: 'installed', size_bytes: null, problem: null };
  }

  /** The .gguf files under MODELS_DIR that are not a catalog model's file: the operator's own models. */
  private async ownGgufFiles(info: ProviderInfo): Promise<LocalModelState[]> {
    const catalogFiles = new Set(info.models.map((id) => this.folders.file(info, id)));
    const ids = (await findGgufFiles(this.folders.modelsDir)).filter(
      (id) => !catalogFiles.has(resolve(this.folders.modelsDir, id)),
    );
    const states = await Promise.all(
      ids.map(async (id) =>
        stateOf(
          id,
          await checkFile(resolve(this.folders.modelsDir, id), id, undefined, this.digests),
          'replace it with a GGUF model file or remove it',
        ),
      ),
    );
    return states.filter((m) => m !== undefined);
  }
}

function stateOf(model: string, check: FileCheck, fix: string): LocalModelState | undefined {
  if (check.state === 'missing') return undefined;
  if (check.state === 'invalid')
    return { model, status: 'invalid', size_bytes: check.size, problem: `${check.problem}; ${fix}` };
  return { model, status: 'installed', size_bytes: check.size, problem: null };
}
