import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { projectRoot } from '../../project/project-root.js';

/**
 * models/manifest.json: the models `npm run models` downloads, each file with the size and sha256
 * it is pinned to (null: not pinned yet). The server reads it to verify the files it finds; the
 * download script to fetch and check them. Unknown keys (`$comment`) are kept, so `--pin` can
 * write the manifest back whole.
 */
const manifestFileSchema = z.looseObject({
  path: z.string().min(1),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  size: z.number().int().nonnegative().nullable(),
});

const manifestModelSchema = z.looseObject({
  id: z.string().min(1),
  task: z.string(),
  default: z.boolean(),
  description: z.string(),
  license: z.string(),
  source: z.looseObject({ hub: z.literal('huggingface'), repo: z.string(), revision: z.string() }),
  files: z.array(manifestFileSchema),
});

const modelManifestSchema = z.looseObject({ version: z.literal(1), models: z.array(manifestModelSchema) });

export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type ManifestModel = z.infer<typeof manifestModelSchema>;
export type ModelManifest = z.infer<typeof modelManifestSchema>;

/** What a manifest pins one file to; null fields are not pinned. */
export type FilePin = Pick<ManifestFile, 'size' | 'sha256'>;

export const modelManifestPath = join(projectRoot, 'models', 'manifest.json');

/** Reads and checks a manifest; throws naming the file and the first bad field. */
export function readModelManifest(path = modelManifestPath): ModelManifest {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const parsed = modelManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The pin of `file` (its path in the model's folder) of manifest model `modelId`, if the manifest lists it. */
export function pinOf(manifest: ModelManifest, modelId: string, file: string): FilePin | undefined {
  return manifest.models.find((m) => m.id === modelId)?.files.find((f) => f.path === file);
}
