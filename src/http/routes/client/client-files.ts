import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../../project/project-root.js';

/** Where `npm run build:client` writes the client SDK bundle (scripts/build-client.ts). */
export const clientBuildDir = join(projectRoot, 'dist', 'client');

/** The files Parley serves under /sdk/v1/, by the name they are served as. */
const clientFiles = {
  'client.js': 'parley-client.js',
  'audio-worklet.js': 'audio-worklet.js',
} as const;
export type ClientFileName = keyof typeof clientFiles;

export interface ClientFile {
  body: string;
  etag: string;
}

/**
 * The built SDK files, read on first request and kept (they change only with a new build, and a
 * new build means a restart). Null when the SDK has not been built.
 */
export class ClientFiles {
  private readonly cache = new Map<ClientFileName, Promise<ClientFile | null>>();

  constructor(private readonly dir = clientBuildDir) {}

  get(name: ClientFileName): Promise<ClientFile | null> {
    let file = this.cache.get(name);
    if (file === undefined) {
      file = this.read(name);
      this.cache.set(name, file);
    }
    return file;
  }

  private async read(name: ClientFileName): Promise<ClientFile | null> {
    let body: string;
    try {
      body = await readFile(join(this.dir, clientFiles[name]), 'utf8');
    } catch (err) {
      this.cache.delete(name); // not built yet: look again next time
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
  }
}
