import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ProviderInfo } from '../../records/provider-catalog.js';

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/**
 * Where local models live: `<MODELS_DIR>/<model id>` (transformers.js layout), or the folder an
 * alias names for ids whose folder is named otherwise (test fixtures, renamed downloads).
 */
export class ModelFolders {
  constructor(
    private readonly modelsDir: string,
    private readonly aliases: Readonly<Record<string, string>> = {},
  ) {}

  /** The folder a model is expected in. */
  dir(modelId: string): string {
    return resolve(this.modelsDir, this.aliases[modelId] ?? modelId);
  }

  /** The folder has config.json and onnx/. */
  async installed(modelId: string): Promise<boolean> {
    const dir = this.dir(modelId);
    const [config, onnx] = await Promise.all([isFile(join(dir, 'config.json')), isDirectory(join(dir, 'onnx'))]);
    return config && onnx;
  }

  /** The provider's models that are installed (their file, for single-file models), in catalog order. */
  async installedOf(info: ProviderInfo): Promise<string[]> {
    const installed = await Promise.all(
      info.models.map((id) => {
        const file = info.modelFiles?.[id];
        return file === undefined ? this.installed(id) : isFile(join(this.dir(id), file));
      }),
    );
    return info.models.filter((_, i) => installed[i]);
  }

  /**
   * Why a model cannot be used, or null when it can: its `file` is readable (single-file models),
   * or config.json and at least one .onnx file are.
   */
  async unreadable(modelId: string, file?: string): Promise<string | null> {
    const dir = this.dir(modelId);
    if (file !== undefined) {
      return access(join(dir, file), constants.R_OK).then(
        () => null,
        () => `${modelId}: ${file} is not readable`,
      );
    }
    try {
      await access(join(dir, 'config.json'), constants.R_OK);
    } catch {
      return `${modelId}: config.json is not readable`;
    }
    const files = await readdir(join(dir, 'onnx')).catch(() => [] as string[]);
    const onnx = files.filter((f) => f.endsWith('.onnx'));
    if (onnx.length === 0) return `${modelId}: no .onnx file in onnx/`;
    const readable = await Promise.all(
      onnx.map((f) =>
        access(join(dir, 'onnx', f), constants.R_OK).then(
          () => true,
          () => false,
        ),
      ),
    );
    return readable.some(Boolean) ? null : `${modelId}: no readable .onnx file in onnx/`;
  }

  /** What to tell an operator when none of the provider's models is installed. */
  static missingReason(info: ProviderInfo): string {
    const files = info.modelFiles;
    if (files !== undefined) {
      const paths = info.models.map((id) => `MODELS_DIR/${id}/${files[id] ?? '<file>'}`);
      return `no model installed: expected ${paths.join(' or ')} (npm run models downloads it)`;
    }
    return (
      `no model installed in MODELS_DIR: expected a folder with config.json and onnx/ for one of ` +
      `${info.models.join(', ')} (npm run models downloads them)`
    );
  }
}
