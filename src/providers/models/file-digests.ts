import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Bytes read per step while hashing: the event loop runs between steps. */
const readSize = 1024 * 1024;

/** The sha256 of a file, hex, streamed in 1 MiB reads (never the whole file in memory). */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: readSize })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What identifies one version of a file without reading it. */
export interface FileVersion {
  size: number;
  mtimeMs: number;
}

/**
 * The sha256 of files, computed once per (path, size, mtime): hashing a multi-GB model takes
 * seconds, so each version of a file is hashed once (streamed, `sha256OfFile`) and every later
 * check of the same version reuses the answer; a file that changes (new size or mtime) is hashed
 * again. One entry per path; callers asking while it is computed share the computation.
 */
export class FileDigests {
  private readonly known = new Map<string, FileVersion & { digest: Promise<string> }>();

  constructor(private readonly compute: (path: string) => Promise<string> = sha256OfFile) {}

  sha256(path: string, version: FileVersion): Promise<string> {
    const known = this.known.get(path);
    if (known !== undefined && known.size === version.size && known.mtimeMs === version.mtimeMs) return known.digest;
    const digest = this.compute(path);
    this.known.set(path, { size: version.size, mtimeMs: version.mtimeMs, digest });
    // The caller gets the rejection; this only forgets the failure, so the next check hashes again.
    digest.catch(() => {
      if (this.known.get(path)?.digest === digest) this.known.delete(path);
    });
    return digest;
  }
}
