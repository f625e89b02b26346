/**
 * `npm run models`: downloads the models of models/manifest.json from the Hugging Face hub into
 * MODELS_DIR (default ./models) as `<MODELS_DIR>/<id>/<path>`, the layout transformers.js reads.
 *
 * Each file is streamed to a temporary file beside its destination, checked (size and sha256 when
 * the manifest pins them) and only then renamed into place, so an interrupted run never leaves a
 * half file under the real name. Files already present with the pinned hash are skipped; a present
 * file whose size or sha256 differs from the pin is downloaded again. Where the manifest has no
 * hash yet, the computed one is printed (and written with --pin). `--list` checks what is there the
 * way the server does (scripts/models-list.ts) and exits 1 when a file is invalid.
 *
 *   npm run models                          # the default models
 *   npm run models -- --only Xenova/whisper-base.en [--only …]
 *   npm run models -- --all | --list | --pin
 *
 * Environment: MODELS_DIR; HF_ENDPOINT (a hub mirror, default https://huggingface.co);
 * HF_TOKEN (for gated repositories).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { checkFile } from '../src/providers/models/file-check.js';
import { FileDigests, sha256OfFile } from '../src/providers/models/file-digests.js';
import {
  modelManifestPath,
  readModelManifest,
  type ManifestFile,
  type ManifestModel,
} from '../src/providers/models/model-manifest.js';
import { formatBytes, listModels } from './models-list.js';

/** The hub could not be reached at all: no point trying the other files. */
class HubUnreachableError extends Error {}

const stallTimeoutMs = 30_000;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      pin: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('usage: npm run models -- [--only <id>]... [--all] [--list] [--pin]');
    return 0;
  }
  const manifest = readModelManifest();
  const modelsDir = resolve(process.env['MODELS_DIR'] || './models');
  const endpoint = (process.env['HF_ENDPOINT'] || 'https://huggingface.co').replace(/\/+$/, '');

  const unknown = (values.only ?? []).filter((id) => !manifest.models.some((m) => m.id === id));
  if (unknown.length > 0) {
    console.error(`models: not in models/manifest.json: ${unknown.join(', ')}`);
    console.error(`known: ${manifest.models.map((m) => m.id).join(', ')}`);
    return 2;
  }
  const selected = manifest.models.filter((m) =>
    values.only !== undefined ? values.only.includes(m.id) : values.all || m.default,
  );

  if (values.list) {
    const { lines, invalid } = await listModels(manifest, modelsDir);
    for (const line of lines) console.log(line);
    if (invalid > 0) console.error(`models: ${invalid} invalid (never loaded): the fix is on each line`);
    return invalid > 0 ? 1 : 0;
  }

  console.log(`models: ${selected.length} model(s) into ${modelsDir} from ${endpoint}`);
  let failures = 0;
  const digests = new FileDigests();
  for (const model of selected) {
    console.log(`${model.id} (${model.license})`);
    for (const file of model.files) {
      const dest = join(modelsDir, model.id, file.path);
      try {
        const line = await ensureFile(endpoint, model, file, dest, values.pin, digests);
        console.log(`  ${file.path}: ${line}`);
      } catch (err) {
        failures += 1;
        console.error(`  ${file.path}: FAILED: ${(err as Error).message}`);
        if (err instanceof HubUnreachableError) {
          console.error(
            `models: cannot reach ${endpoint}. Check the network or proxy, set HF_ENDPOINT to a mirror, ` +
              `or copy the files by hand into ${modelsDir}/<id>/<path>.`,
          );
          return 1;
        }
      }
    }
  }
  if (values.pin) await writeFile(modelManifestPath, JSON.stringify(manifest, null, 2) + '\n');
  if (failures > 0) {
    console.error(`models: ${failures} file(s) failed`);
    return 1;
  }
  console.log('models: done');
  return 0;
}

/** Makes `dest` hold the right file; returns what was done. With `pin`, records hash, size and commit. */
async function ensureFile(
  endpoint: string,
  model: ManifestModel,
  file: ManifestFile,
  dest: string,
  pin: boolean,
  digests: FileDigests,
): Promise<string> {
  const present = await checkFile(dest, file.path, file, digests);
  if (present.state === 'ok') {
    if (present.verified === 'sha256') return 'present, sha256 verified';
    const sha256 = await sha256OfFile(dest);
    if (pin) Object.assign(file, { sha256, size: present.size });
    const pinned = present.verified === 'size' ? 'size verified; sha256 not pinned' : 'not pinned';
    return `present, sha256 ${sha256} (${pinned} in the manifest)`;
  }
  if (present.state === 'invalid')
    console.log(`  ${file.path}: present but invalid (${present.problem}); downloading again`);

  const { repo, revision } = model.source;
  const url = `${endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${file.path}`;
  const part = `${dest}.part-${process.pid}`;
  try {
    const { sha256, size, commit } = await download(url, part);
    if (file.size !== null && size !== file.size) throw new Error(`size ${size} bytes, manifest says ${file.size}`);
    if (file.sha256 !== null && sha256 !== file.sha256) {
      throw new Error(`sha256 ${sha256} does not match the manifest's ${file.sha256}`);
    }
    await rename(part, dest);
    if (file.sha256 !== null) return `downloaded ${formatBytes(size)}, sha256 verified`;
    if (pin) {
      Object.assign(file, { sha256, size });
      if (commit !== undefined && model.source.revision !== commit) model.source.revision = commit;
    }
    return `downloaded ${formatBytes(size)}, sha256 ${sha256} (not pinned in the manifest)`;
  } finally {
    await rm(part, { force: true });
  }
}

async function download(url: string, to: string): Promise<{ sha256: string; size: number; commit?: string }> {
  const abort = new AbortController();
  let stall = setTimeout(() => abort.abort(new Error(`no data for ${stallTimeoutMs} ms`)), stallTimeoutMs);
  const token = process.env['HF_TOKEN'];
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        signal: abort.signal,
        redirect: 'follow',
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    } catch (err) {
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      throw new HubUnreachableError(`${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    if (!res.ok || res.body === null) {
      throw new Error(`${url}: HTTP ${res.status}${res.status === 401 ? ' (gated or private: set HF_TOKEN)' : ''}`);
    }
    await mkdir(dirname(to), { recursive: true });
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        clearTimeout(stall);
        stall = setTimeout(() => abort.abort(new Error(`no data for ${stallTimeoutMs} ms`)), stallTimeoutMs);
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body), meter, createWriteStream(to, { mode: 0o644 }));
    const commit = res.headers.get('x-repo-commit') ?? undefined;
    return { sha256: hash.digest('hex'), size, ...(commit !== undefined ? { commit } : {}) };
  } finally {
    clearTimeout(stall);
  }
}

process.exitCode = await main();
