import type { Logger } from 'pino';
import { AppError } from '../errors/app-errors.js';

/** How long a write is retried while Redis is unreachable unless told (PARLEY_RECORD_RETRY_MS). */
export const defaultRecordRetryMs = 30_000;

export interface SessionWritesOptions {
  logger: Logger;
  /** How long after it was asked for a write is retried while it fails for want of Redis (default 30 s). */
  windowMs?: number | undefined;
  /** First delay between attempts; each next one doubles, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Called once a write is given up (after logging it), e.g. to leave an error record. */
  onGiveUp?: (sessionId: string, what: string, err: unknown) => Promise<void>;
}

/** Writes that fail for a reason retrying cannot change (a 4xx: the record is gone) are not retried. */
function retryable(err: unknown): boolean {
  return !(err instanceof AppError && err.status < 500);
}

/**
 * The one write queue of live (voice) sessions' records. A session's writes run one after another
 * in the order they were asked for (the user's message before the answer, the answer before its
 * playback, every turn before the session's end), off the audio path: nothing the user hears waits
 * for Redis, and one session never waits for another's. A write that fails because Redis is
 * unreachable is retried with capped exponential backoff for `windowMs` after it was asked for,
 * then given up: logged at error level and handed to `onGiveUp`; the writes after it still run.
 * Nothing here rejects, so a session can fire its writes and carry on; `drain` bounds the wait
 * for the ones still queued at shutdown.
 */
export class SessionWrites {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(private readonly o: SessionWritesOptions) {}

  /** Runs `write` after the session's earlier writes; resolves with its result, or undefined once given up. */
  run<T>(sessionId: string, what: string, write: () => Promise<T>): Promise<T | undefined> {
    const askedAt = Date.now();
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(() => this.attempt(sessionId, what, write, askedAt));
    this.tails.set(sessionId, next);
    void next.finally(() => {
      if (this.tails.get(sessionId) === next) this.tails.delete(sessionId);
    });
    return next;
  }

  /**
   * Runs `write` at once, retried and given up as `run` does, without queueing it: for a write
   * its caller already runs inside one of the session's `run` steps (a step that waits for an
   * earlier write's result, such as a playback waiting for its answer's stored message), which
   * would otherwise wait behind the very step that waits for it.
   */
  retrying<T>(sessionId: string, what: string, write: () => Promise<T>): Promise<T | undefined> {
    return this.attempt(sessionId, what, write, Date.now());
  }

  /** Writes still queued or retrying, across sessions. */
  get pending(): number {
    return this.tails.size;
  }

  /** Waits for every queued write to be stored or given up, at most `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.tails.values()]), timeout]);
    clearTimeout(timer);
  }

  private async attempt<T>(
    sessionId: string,
    what: string,
    write: () => Promise<T>,
    askedAt: number,
  ): Promise<T | undefined> {
    const windowMs = this.o.windowMs ?? defaultRecordRetryMs;
    let delay = this.o.firstDelayMs ?? 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        const left = askedAt + windowMs - Date.now();
        if (!retryable(err) || left <= 0) {
          this.o.logger.error({ err, session_id: sessionId, write: what, attempts: attempt }, 'session record lost');
          await this.o.onGiveUp?.(sessionId, what, err);
          return undefined;
        }
        if (attempt === 1)
          this.o.logger.warn({ err, session_id: sessionId, write: what }, 'session record write failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
        delay = Math.min(delay * 2, this.o.maxDelayMs ?? 2_000);
      }
    }
  }
}
