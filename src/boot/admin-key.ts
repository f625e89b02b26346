import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { BootError } from './boot-error.js';

export const adminKeyFileName = 'admin-api-key';

export interface AdminKey {
  readonly key: string;
  /** `env`: PARLEY_ADMIN_API_KEY; `file`: reused from the data folder; `generated`: created by this start. */
  readonly source: 'env' | 'file' | 'generated';
  /** The file the key was read from or written to (sources `file` and `generated`). */
  readonly path?: string;
}

/** `padm_` + 32 random bytes, base64url. */
export function generateAdminKey(): string {
  return `padm_${randomBytes(32).toString('base64url')}`;
}

/**
 * The admin API key: PARLEY_ADMIN_API_KEY when set. Otherwise, outside production, the key kept in
 * `<PARLEY_DATA_DIR>/admin-api-key` (mode 0600), generated on the first start. In production a
 * missing key is a BootError: a generated secret nobody saw is no way to run a production service.
 */
export async function resolveAdminKey(config: Pick<Config, 'adminApiKey' | 'env' | 'dataDir'>): Promise<AdminKey> {
  if (config.adminApiKey !== undefined) return { key: config.adminApiKey, source: 'env' };
  if (config.env === 'production') {
    throw new BootError(
      'PARLEY_ADMIN_API_KEY is required when NODE_ENV=production (at least 16 characters; for example: ' +
        `node -e "console.log('padm_'+require('crypto').randomBytes(32).toString('base64url'))")`,
    );
  }
  const path = join(config.dataDir, adminKeyFileName);
  const existing = await readKeyFile(path);
  if (existing !== undefined) return { key: existing, source: 'file', path };

  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const key = generateAdminKey();
  try {
    // 'wx': never overwrite a key another process wrote a moment ago.
    await writeFile(path, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (isCode(err, 'EEXIST')) {
      const raced = await readKeyFile(path);
      if (raced !== undefined) return { key: raced, source: 'file', path };
    }
    throw err;
  }
  return { key, source: 'generated', path };
}

async function readKeyFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
  const key = text.trim();
  if (key.length < 16) {
    throw new BootError(
      `${path} does not hold a usable admin API key (at least 16 characters); delete it to generate a new one`,
    );
  }
  return key;
}

/** The lines main.ts prints once, on the start that generated the key. */
export function generatedKeyBanner(adminKey: AdminKey): string {
  const rule = '='.repeat(78);
  return [
    rule,
    `Parley admin API key (generated, saved in ${adminKey.path ?? '?'}):`,
    '',
    `    ${adminKey.key}`,
    '',
    'Send it as the X-API-Key header to /admin/v1. It is printed only this once;',
    'set PARLEY_ADMIN_API_KEY to use a key of your own instead.',
    rule,
    '',
  ].join('\n');
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}
