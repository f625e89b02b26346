import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

/** One built panel file held in memory, with its compressed forms when they are smaller. */
export interface PanelFile {
  /** Extension Koa maps to a Content-Type (`.js`, `.css`, `.html`). */
  type: string;
  etag: string;
  identity: Buffer;
  br: Buffer | undefined;
  gzip: Buffer | undefined;
}

export interface PanelFiles {
  index: PanelFile;
  /** By file name under `assets/` (content-hashed names). */
  assets: Map<string, PanelFile>;
}

const compressible = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.map']);

function load(path: string): PanelFile {
  const identity = readFileSync(path);
  const type = extname(path);
  const smaller = (b: Buffer) => (b.length < identity.length ? b : undefined);
  const compress = compressible.has(type) && identity.length > 512;
  return {
    type,
    // Weak: one tag for the identity, brotli and gzip bodies (same content, different bytes).
    etag: `W/"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    br: compress ? smaller(brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } })) : undefined,
    gzip: compress ? smaller(gzipSync(identity, { level: 9 })) : undefined,
  };
}

/**
 * Reads a built panel (`index.html` and `assets/*`, as scripts/build-panel.ts writes it) into memory:
 * a few hundred KB at most, read and compressed once. Undefined when there is no build there.
 */
export function loadPanelFiles(dir: string): PanelFiles | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assetsDir = join(dir, 'assets');
  const assets = new Map<string, PanelFile>();
  for (const name of existsSync(assetsDir) ? readdirSync(assetsDir) : []) {
    assets.set(name, load(join(assetsDir, name)));
  }
  return { index: load(indexPath), assets };
}
