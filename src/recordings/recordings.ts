import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors.js';
import { isId } from '../id-format.js';
import type { StoredAgent } from '../records/agent.js';
import type { Session } from '../records/session.js';
import type { Store } from '../store/store.js';
import { RecordingWriter } from './recording-writer.js';
import { repairWavSizes } from './wav-file.js';

export interface RecordingsOptions {
  /** `<PARLEY_DATA_DIR>/recordings`: one folder per agent, one `<conversation id>.wav` per session. */
  dir: string;
  store: Pick<Store, 'agents' | 'conversations'>;
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

/** A file untouched this long is not being written: the sweep may repair its header. */
const settledMs = 60_000;
const dayMs = 86_400_000;

const ENOENT = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The store of call recordings on disk. Every process records its own sessions into the same
 * folder (a shared volume when there are several boxes) and may run the retention sweep:
 * deleting is idempotent, so sweeps running side by side do no harm.
 */
export class Recordings {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;

  constructor(private readonly o: RecordingsOptions) {}

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
    // where the recording starts on the wall clock: the panel places messages in it (off the audio path)
    void this.o.store.conversations
      .setRecordingStart(session.conversation_id, startedAt)
      .catch((err: unknown) =>
        this.o.logger.warn({ err, session_id: session.id }, 'could not store when the recording started'),
      );
    return new RecordingWriter({
      path: this.path(agent.id, session.conversation_id),
      callerOnly: mode === 'caller_only',
      ...audio,
      logger: this.o.logger.child({ session_id: session.id }),
      flushMs: this.o.flushMs,
    });
  }

  /** The recording's size in bytes, or null when there is none. */
  async size(agentId: string, conversationId: string): Promise<number | null> {
    try {
      const info = await stat(this.path(agentId, conversationId));
      return info.isFile() ? info.size : null;
    } catch (err) {
      if (ENOENT(err)) return null;
      throw err;
    }
  }

  /** Deletes a conversation's recording; nothing to delete is fine. */
  async delete(agentId: string, conversationId: string): Promise<void> {
    await unlink(this.path(agentId, conversationId)).catch((err: unknown) => {
      if (!ENOENT(err)) throw err;
    });
  }

  /** Runs the sweep now and every `sweepIntervalMs`. */
  start(): void {
    if (this.timer !== null) return;
    const run = () =>
      void this.sweep().catch((err: unknown) => this.o.logger.error({ err }, 'recording retention sweep failed'));
    this.timer = setInterval(run, this.o.sweepIntervalMs ?? 3_600_000);
    this.timer.unref();
    run();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => 0);
  }

  /**
   * Deletes the recordings older than their agent's `recording_retention_days` (by the time they
   * were last written: the end of the call); repairs the header of settled files a killed process
   * left behind. A deleted agent's recordings are kept (history, like its conversations).
   * Resolves with the number deleted.
   */
  sweep(nowMs: number = Date.now()): Promise<number> {
    this.sweeping ??= this.sweepOnce(nowMs).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepOnce(nowMs: number): Promise<number> {
    let deleted = 0;
    for (const agentId of await this.names(this.o.dir)) {
      if (!isId('agent', agentId)) continue;
      const agent = await this.o.store.agents.get(agentId).catch(nullIfNotFound);
      const keepMs = agent?.recording_retention_days == null ? null : agent.recording_retention_days * dayMs;
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
          deleted++;
        } else if (age > settledMs && (await repairWavSizes(path))) {
          this.o.logger.warn({ path }, 'recording header repaired (its process stopped mid-call)');
        }
      }
    }
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
