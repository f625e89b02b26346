import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ggufModelIdProblem } from '../../schemas/gguf-model-id.js';
import type { ProviderInfo } from '../../schemas/provider-catalog.js';

async function isFile(path: string): Promise<boolean> {
  // a path that cannot be read (missing, no permission) is no usable file: callers report it so
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  // as isFile: unreadable is no folder
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
    readonly modelsDir: string,
    private readonly aliases: Readonly<Record<string, string>> = {},
  ) {}

  /** The folder a model is expected in. */
  dir(modelId: string): string {
    return resolve(this.modelsDir, this.aliases[modelId] ?? modelId);
  }

  /** Whether the folder looks like a transformers.js model: config.json and onnx/. */
  async looksInstalled(modelId: string): Promise<boolean> {
    const dir = this.dir(modelId);
    const [config, onnx] = await Promise.all([isFile(join(dir, 'config.json')), isDirectory(join(dir, 'onnx'))]);
    return config && onnx;
  }

  /**
   * The file of a single-file model: a catalog model's file in its folder, or (providers taking
   * any GGUF) the file a GGUF model id names under MODELS_DIR; undefined when the id names none.
   */
  file(info: ProviderInfo, modelId: string): string | undefined {
    const file = info.modelFiles?.[modelId];
    if (file !== undefined) return join(this.dir(modelId), file);
    if (info.anyGgufFile === true && ggufModelIdProblem(modelId) === null) return resolve(this.modelsDir, modelId);
    return undefined;
  }

  /** Why a model folder cannot be used, or null when it can: config.json and at least one .onnx file are readable. */
  async unreadable(modelId: string): Promise<string | null> {
    const dir = this.dir(modelId);
    try {
      await access(join(dir, 'config.json'), constants.R_OK);
    } catch {
      return 'config.json is not readable';
    }
    const files = await readdir(join(dir, 'onnx')).catch(() => [] as string[]); // reported below: no .onnx file
    const onnx = files.filter((f) => f.endsWith('.onnx'));
    if (onnx.length === 0) return 'no .onnx file in onnx/';
    const readable = await Promise.all(
      onnx.map((f) =>
        // an unreadable file counts as unusable; reported below when none is readable
        access(join(dir, 'onnx', f), constants.R_OK).then(
          () => true,
          () => false,
        ),
      ),
    );
    return readable.some(Boolean) ? null : 'no readable .onnx file in onnx/';
  }

  /** What to tell an operator when none of the provider's models is installed. */
  static missingReason(info: ProviderInfo): string {
    const files = info.modelFiles;
    if (files !== undefined) {
      const paths = info.models.map((id) => `MODELS_DIR/${id}/${files[id] ?? '<file>'}`);
      const own = info.anyGgufFile === true ? ', or any .gguf under MODELS_DIR' : '';
      return `no model installed: expected ${paths.join(' or ')} (npm run models downloads it)${own}`;
    }
    return (
      `no model installed in MODELS_DIR: expected a folder with config.json and onnx/ for one of ` +
      `${info.models.join(', ')} (npm run models downloads them)`
    );
  }
}
