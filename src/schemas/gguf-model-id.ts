/**
 * A `local-llama` model of the operator's own: a `.gguf` file anywhere under MODELS_DIR, named by its
 * path relative to MODELS_DIR with `/` between folders (`my-models/llama-3.2-1b-q4_k_m.gguf`). A
 * file elsewhere is linked into MODELS_DIR (a symbolic link works): the model id never leaves
 * that folder, so a preset cannot point the server at an arbitrary file.
 */

/** Whether `id` has the form of a GGUF file id (its problems aside): it ends in `.gguf`. */
export function looksLikeGgufFile(id: string): boolean {
  return id.toLowerCase().endsWith('.gguf');
}

/** Why `id` cannot name a GGUF file under MODELS_DIR, or null when it can (the file may still be absent). */
export function ggufModelIdProblem(id: string): string | null {
  if (!looksLikeGgufFile(id)) return 'a model file must end in .gguf';
  if ([...id].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return 'the path holds a control character';
  if (id.includes('\\')) return 'use / between folders, not \\';
  if (id.startsWith('/') || /^[A-Za-z]:/.test(id))
    return 'an absolute path: name the file by its path relative to MODELS_DIR (link a file kept elsewhere into MODELS_DIR)';
  const segments = id.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    return 'the path must stay under MODELS_DIR: no empty, . or .. folder names';
  return null;
}
