import type { Logger } from 'pino';

/**
 * A session's record writes, one after another in the order they were asked for (the user's
 * message before the answer, the answer before its playback, every turn before the session's end),
 * off the audio path: nothing the user hears waits for Redis. A failed write is logged with what it
 * was and does not stop the writes after it.
 */
export class RecordQueue {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly logger: Logger) {}

  /** Queues `write`; resolves with its result, or null when it failed (logged). */
  run<T>(what: string, write: () => Promise<T>): Promise<T | null> {
    const result = this.tail.then(write).catch((err: unknown) => {
      this.logger.error({ err, what }, 'could not record a voice turn');
      return null;
    });
    this.tail = result;
    return result;
  }

  /** Resolves once every write queued so far has finished. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
