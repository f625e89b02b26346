import { open, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import { isId } from '../ids/id-format.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Session } from '../schemas/session.js';
import type { Store } from '../store/store.js';
import { BucketSync, type BucketHealth } from './bucket-sync.js';
import type { RecordingBucket } from './recording-bucket.js';
import { describeRecording, type DescribedConversation, type NotedConversation } from './recording-facts.js';
import { RecordingWriter } from './recording-writer.js';
import { repairWavSizes } from './wav-file.js';

export interface RecordingsOptions {
  /** `<PARLEY_DATA_DIR>/recordings`: one folder per agent, one `<conversation id>.wav` per session. */
  dir: string;
  store: Pick<Store, 'agents' | 'conversations' | 'conversationRecordings' | 'sessions'>;
  /** PARLEY_RECORDINGS_URL: recordings end in this bucket; `dir` is then the spool of calls not yet uploaded. */
  bucket?: RecordingBucket | undefined;
  logger: Logger;
  /** How often the retention sweep runs (default hourly). */
  sweepIntervalMs?: number | undefined;
  /** How often a live recording is flushed to disk (default 1 s). */
  flushMs?: number | undefined;
}

/**
 * The session's recording when its agent records calls; a recording that cannot start is logged
 * and leaves the call alone (null).
 */
export function openRecording(
  deps: { recordings?: Pick<Recordings, 'open'> | undefined; logger: Logger },
  agent: StoredAgent,
  session: Session,
  audio: RecordingAudio,
): RecordingWriter | null {
  try {
    return deps.recordings?.open(agent, session, audio) ?? null;
  } catch (err) {
    deps.logger.error({ err, session_id: session.id }, 'could not start the recording of this call');
    return null;
  }
}

/** A session's audio as the recording takes it: the transport's rates and the session's clock (ms). */
export interface RecordingAudio {
  callerRate: number;
  agentRate: number;
  now: () => number;
}

/** A stored recording as GET serves it: its size, and a stream of a byte range of it. */
export interface StoredRecording {
  size: number;
  read(start: number, end: number): Promise<Readable>;
}

/** A file untouched this long is not being written: the sweep may repair its header. */
const settledMs = 60_000;
const dayMs = 86_400_000;

const ENOENT = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The store of call recordings: on disk, or (PARLEY_RECORDINGS_URL) in an S3-compatible bucket
 * with the disk folder as the spool of calls not yet uploaded (bucket-sync.ts). Every process
 * records its own sessions into the same folder (a shared volume when there are several boxes on
 * disk alone) and may run the sweep: deleting is idempotent, so sweeps side by side do no harm.
 */
export class Recordings {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  /** Spooled files being written by this process's calls. */
  private readonly writing = new Set<string>();
  private readonly sync: BucketSync | null;

  constructor(private readonly o: RecordingsOptions) {
    this.sync = o.bucket === undefined ? null : new BucketSync(o.bucket, o.store, o.logger);
  }

  /** Where recordings are kept, for /health: disk, or the bucket and whether it answered last time. */
  health(): { store: 'disk' } | BucketHealth {
    return this.sync?.health() ?? { store: 'disk' };
  }

  /** Where a conversation's recording lives; throws on ids that are not Parley's (never a path outside). */
  path(agentId: string, conversationId: string): string {
    if (!isId('agent', agentId) || !isId('conversation', conversationId))
      throw new RangeError(`not a recording's ids: ${agentId}, ${conversationId}`);
    return join(this.o.dir, agentId, `${conversationId}.wav`);
  }

  /** A writer for the session when its agent records calls; null when it does not. */
  open(agent: StoredAgent, session: Session, audio: RecordingAudio): RecordingWriter | null {
    const mode = agent.recording ?? 'off';
    if (mode === 'off') return null;
    const startedAt = new Date().toISOString();
    const conversationId = session.conversation_id;
    // the record says it has a recording, and where it starts on the wall clock: the panel places
    // messages in it (off the audio path)
    void this.o.store.conversationRecordings
      .started(conversationId, startedAt, mode === 'caller_only' ? 1 : 2)
      .catch((err: unknown) =>
        this.o.logger.warn({ err, session_id: session.id }, 'could not store when the recording started'),
      );
    const path = this.path(agent.id, conversationId);
    const sync = this.sync;
    this.writing.add(path);
    return new RecordingWriter({
      path,
      onClosed: async () => {
        this.writing.delete(path);
        await this.noteComplete(path, conversationId);
        if (sync !== null) void sync.upload(path, agent.id, conversationId);
      },
      callerOnly: mode === 'caller_only',
      ...audio,
      logger: this.o.logger.child({ session_id: session.id }),
      flushMs: this.o.flushMs,
    });
  }

  /** The conversation as the Admin API tells it, its `recording` filled in (recording-facts.ts). */
  describe<C extends NotedConversation>(conversation: C): Promise<DescribedConversation<C>> {
    return describeRecording(conversation, (agentId, id) => this.find(agentId, id), this.o.logger);
  }

  /** A call's recording is complete: its record notes its size, or that it has none (no file was ever written). */
  private async noteComplete(path: string, conversationId: string): Promise<void> {
    const notes = this.o.store.conversationRecordings;
    try {
      const info = await stat(path).catch((err: unknown) => {
        if (ENOENT(err)) return null;
        throw err;
      });
      await (info === null ? notes.gone(conversationId) : notes.completed(conversationId, info.size));
    } catch (err) {
      // the record then tells the size from the file itself (recording-facts.ts): nothing is lost
      this.o.logger.warn({ err, conversation_id: conversationId }, 'could not note the size of the recording');
    }
  }

  /** The recording's size in bytes, or null when there is none. */
  async size(agentId: string, conversationId: string): Promise<number | null> {
    return (await this.find(agentId, conversationId))?.size ?? null;
  }

  /**
   * A conversation's recording, or null when there is none: the file on disk (with a bucket: the
   * spooled file of a call not yet uploaded, live ones included), else the bucket's object.
   */
  async find(agentId: string, conversationId: string): Promise<StoredRecording | null> {
    const path = this.path(agentId, conversationId);
    const bucket = this.o.bucket;
    const key = bucket?.key(agentId, conversationId);
    try {
      const info = await stat(path);
      if (info.isFile())
        return {
          size: info.size,
          read: async (start, end) => {
            try {
              // opened here: an upload finishing now may unlink the file, the open handle still reads it
              const file = await open(path, 'r');
              return file.createReadStream({ start, end });
            } catch (err) {
              // uploaded (whole, checked) between stat and open: the bucket holds the same bytes
              if (bucket === undefined || key === undefined || !ENOENT(err)) throw err;
              return bucket.read(key, start, end);
            }
          },
        };
    } catch (err) {
      if (!ENOENT(err)) throw err;
    }
    if (bucket === undefined || key === undefined) return null;
    const size = await bucket.size(key);
    return size === null ? null : { size, read: (start, end) => bucket.read(key, start, end) };
  }

  /** Deletes a conversation's recording (spooled and in the bucket); nothing to delete is fine. */
  async delete(agentId: string, conversationId: string): Promise<void> {
    // an upload under way would put the object back after its deletion
    await this.sync?.uploaded(this.path(agentId, conversationId));
    await unlink(this.path(agentId, conversationId)).catch((err: unknown) => {
      if (!ENOENT(err)) throw err;
    });
    await this.o.bucket?.delete(this.o.bucket.key(agentId, conversationId));
  }

  /** Runs the sweep now and every `sweepIntervalMs`. */
  start(): void {
    if (this.timer !== null) return;
    const run = () =>
      void this.sweep().catch((err: unknown) => this.o.logger.error({ err }, 'recording retention sweep failed'));
    this.timer = setInterval(run, this.o.sweepIntervalMs ?? 3_600_000);
    this.timer.unref();
    // a bucket that cannot be read is said at start-up (log, /health), and the sweep tries again
    if (this.sync !== null)
      void this.sync
        .check()
        .catch((err: unknown) =>
          this.o.logger.error({ err, bucket: this.o.bucket?.label }, 'recordings bucket unusable'),
        )
        .finally(run);
    else run();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => 0); // only waited for: its failure is logged where it was started
    await this.sync?.drain();
    this.sync?.close();
  }

  /**
   * Deletes the recordings older than their agent's `recording_retention_days` (by the time they
   * were last written: the end of the call); repairs the header of settled files a killed process
   * left behind. A deleted agent's recordings are kept (history, like its conversations). With a
   * bucket, the spool's settled files are uploaded and the bucket's expired objects deleted.
   * Resolves with the number deleted.
   */
  sweep(nowMs: number = Date.now()): Promise<number> {
    this.sweeping ??= this.sweepOnce(nowMs).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepOnce(nowMs: number): Promise<number> {
    let deleted = 0;
    const keeps = new Map<string, Promise<number | null>>();
    const keepMsOf = (agentId: string): Promise<number | null> => {
      let keep = keeps.get(agentId);
      if (keep === undefined) {
        keep = this.o.store.agents
          .get(agentId)
          .catch(nullIfNotFound)
          .then((agent) => (agent?.recording_retention_days == null ? null : agent.recording_retention_days * dayMs));
        keeps.set(agentId, keep);
      }
      return keep;
    };
    for (const agentId of await this.names(this.o.dir)) {
      if (!isId('agent', agentId)) continue;
      const keepMs = await keepMsOf(agentId);
      for (const name of await this.names(join(this.o.dir, agentId))) {
        const path = join(this.o.dir, agentId, name);
        if (!name.endsWith('.wav')) continue;
        const info = await stat(path).catch((err: unknown) => {
          if (ENOENT(err)) return null;
          throw err;
        });
        if (info === null) continue;
        const age = nowMs - info.mtimeMs;
        if (keepMs !== null && age > keepMs) {
          await unlink(path).catch((err: unknown) => {
            if (!ENOENT(err)) throw err;
          });
          const conversationId = name.slice(0, -'.wav'.length);
          if (isId('conversation', conversationId)) await this.o.store.conversationRecordings.gone(conversationId);
          deleted++;
        } else if (this.sync !== null) {
          const conversationId = name.slice(0, -'.wav'.length);
          if (
            isId('conversation', conversationId) &&
            (await this.sync.settled(path, conversationId, age, this.writing.has(path)))
          )
            await this.sync.sendLeftover(path, agentId, conversationId);
        } else if (age > settledMs && (await repairWavSizes(path))) {
          this.o.logger.warn({ path }, 'recording header repaired (its process stopped mid-call)');
        }
      }
    }
    if (this.sync !== null) deleted += await this.sync.expire(nowMs, keepMsOf);
    if (deleted > 0) this.o.logger.info({ deleted }, 'expired recordings deleted');
    return deleted;
  }

  private async names(dir: string): Promise<string[]> {
    try {
      return await readdir(dir);
    } catch (err) {
      if (ENOENT(err)) return [];
      throw err;
    }
  }
}
