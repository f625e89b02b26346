import { stat, unlink } from 'node:fs/promises';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import { isId } from '../ids/id-format.js';
import type { Store } from '../store/store.js';
import type { RecordingBucket } from './recording-bucket.js';
import { repairWavSizes } from './wav-file.js';

/** A spooled file untouched this long, whose session has ended, is complete (a live one is flushed every second). */
const quietMs = 3_000;
/** A spooled file untouched this long is complete whatever its session's record says. */
const settledMs = 60_000;

/** What /health says of the bucket: the outcome of the last request that tells (check, upload, sweep). */
export interface BucketHealth {
  store: 's3';
  bucket: string;
  status: 'ok' | 'error';
  /** The last failure's message, while the bucket fails. */
  detail: string | null;
}

const ENOENT = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Moves recordings from the spool on disk to the bucket: a call's file at its end, and on every
 * sweep the files a failed upload or a killed process left (their header repaired first, so a
 * call cut by kill -9 arrives playable). The spooled file is deleted only after the bucket has
 * taken it whole; until then GET serves it from the spool. Also the bucket's retention.
 */
export class BucketSync {
  /** Spooled files this process is uploading now (the sweep leaves them alone). */
  private readonly uploading = new Map<string, Promise<void>>();
  private problem: string | null = null;

  constructor(
    private readonly bucket: RecordingBucket,
    private readonly store: Pick<Store, 'agents' | 'conversations' | 'conversationRecordings' | 'sessions'>,
    private readonly logger: Logger,
  ) {}

  health(): BucketHealth {
    return {
      store: 's3',
      bucket: this.bucket.label,
      status: this.problem === null ? 'ok' : 'error',
      detail: this.problem,
    };
  }

  /** Reads the bucket once (start-up): a wrong bucket, endpoint or secret is logged and shown in /health. */
  async check(): Promise<void> {
    await this.track(this.bucket.check());
    this.logger.info({ bucket: this.bucket.label }, 'recordings go to a bucket');
  }

  /** Uploads a complete spooled recording, then deletes it from the spool; failures are logged, the file kept. */
  upload(path: string, agentId: string, conversationId: string): Promise<void> {
    let running = this.uploading.get(path);
    if (running !== undefined) return running;
    running = this.uploadOnce(path, agentId, conversationId)
      .catch((err: unknown) =>
        this.logger.error(
          { err, path, bucket: this.bucket.label },
          'recording upload failed: kept in the spool, the next sweep retries',
        ),
      )
      .finally(() => this.uploading.delete(path));
    this.uploading.set(path, running);
    return running;
  }

  private async uploadOnce(path: string, agentId: string, conversationId: string): Promise<void> {
    const info = await stat(path).catch((err: unknown) => {
      if (ENOENT(err)) return null; // never written (a failed disk), or deleted with its conversation
      throw err;
    });
    if (info === null) return;
    await this.track(this.bucket.upload(this.bucket.key(agentId, conversationId), path, info.size));
    await unlink(path).catch((err: unknown) => {
      if (!ENOENT(err)) throw err;
    });
  }

  /** Whether a spooled file is complete: nobody here writes or uploads it, and its call is over. */
  async settled(path: string, conversationId: string, ageMs: number, writing: boolean): Promise<boolean> {
    if (writing || this.uploading.has(path) || ageMs < quietMs) return false;
    if (ageMs > settledMs) return true;
    const conversation = await this.store.conversations.get(conversationId).catch(nullIfNotFound);
    if (conversation === null) return false;
    const session = await this.store.sessions.get(conversation.session_id).catch(nullIfNotFound);
    return session?.status !== 'active';
  }

  /** A settled spooled file: header repaired (a killed process's), then uploaded. */
  async sendLeftover(path: string, agentId: string, conversationId: string): Promise<void> {
    if (await repairWavSizes(path))
      this.logger.warn({ path }, 'recording header repaired (its process stopped mid-call)');
    await this.upload(path, agentId, conversationId);
  }

  /** Deletes the bucket's recordings older than their agent's retention (by upload time: the call's end). */
  async expire(nowMs: number, keepMsOf: (agentId: string) => Promise<number | null>): Promise<number> {
    let deleted = 0;
    const prefix = this.bucket.o.prefix;
    for await (const object of this.trackEach(this.bucket.list())) {
      const [agentId, name, ...rest] = object.key.slice(prefix.length).split('/');
      if (rest.length > 0 || agentId === undefined || !isId('agent', agentId) || !name?.endsWith('.wav')) continue;
      const keepMs = await keepMsOf(agentId);
      if (keepMs === null || nowMs - object.lastModified.getTime() <= keepMs) continue;
      await this.track(this.bucket.delete(object.key));
      const conversationId = name.slice(0, -'.wav'.length);
      if (isId('conversation', conversationId)) await this.store.conversationRecordings.gone(conversationId);
      deleted++;
    }
    return deleted;
  }

  /** Waits for the upload of this spooled file if one is under way (a delete must not race it). */
  async uploaded(path: string): Promise<void> {
    await this.uploading.get(path);
  }

  /** Waits for the uploads under way (shutdown). */
  async drain(): Promise<void> {
    await Promise.all(this.uploading.values());
  }

  close(): void {
    this.bucket.close();
  }

  /** Notes each request's outcome for /health. */
  private track<T>(work: Promise<T>): Promise<T> {
    return work.then(
      (value) => {
        this.problem = null;
        return value;
      },
      (err: unknown) => this.failed(err),
    );
  }

  /** The same for a listing, page by page. */
  private async *trackEach<T>(work: AsyncGenerator<T>): AsyncGenerator<T> {
    try {
      yield* work;
      this.problem = null;
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): never {
    this.problem = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw err;
  }
}
