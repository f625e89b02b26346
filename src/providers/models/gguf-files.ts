import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ggufModelIdProblem, looksLikeGgufFile } from '../../schemas/gguf-model-id.js';

/** Folders below MODELS_DIR searched for .gguf files (MODELS_DIR/a/b/c/d/model.gguf is the deepest). */
export const ggufSearchDepth = 4;

/**
 * The `.gguf` files under `modelsDir`, as paths relative to it with `/` between folders, sorted:
 * the ids of the operator's own `local-llama` models. Symbolic links to files count (a model kept
 * elsewhere is linked in); links to folders are not followed (no loops), nor are hidden folders
 * (`.cache`) or folders deeper than `ggufSearchDepth`. A missing MODELS_DIR holds none.
 */
export async function findGgufFiles(modelsDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string[], depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(modelsDir, ...relative), { withFileTypes: true });
    } catch {
      // A folder that is missing or cannot be listed holds no model this server could load; the
      // status says "no model installed" with the path it expects.
      return;
    }
    const folders: string[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && depth < ggufSearchDepth) folders.push(entry.name);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && looksLikeGgufFile(entry.name)) {
        const id = [...relative, entry.name].join('/');
        // A name no preset could give (a backslash, a control character) is not offered.
        if (ggufModelIdProblem(id) === null) found.push(id);
      }
    }
    await Promise.all(folders.map((name) => walk([...relative, name], depth + 1)));
  };
  await walk([], 0);
  return found.sort();
}
