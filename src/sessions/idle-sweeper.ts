import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import type { Store } from '../store/store.js';
import type { TurnRecorder } from '../session-writes/turn-recorder.js';

export interface IdleSweeperOptions {
  store: Store;
  /** Ends each session together with its `session_end`, atomically. */
  recorder: TurnRecorder;
  logger: Logger;
  /** A chat session with no message for this long is ended (`idle_timeout`). */
  chatIdleTimeoutMs: number;
  intervalMs: number;
}

/**
 * Ends chat sessions nobody has written to for `chatIdleTimeoutMs`, each with its `session_end`
 * written in the same atomic step (the turn recorder). Every instance may sweep: ending is atomic
 * and idempotent in Redis, so each session ends once and its event is written once.
 */
export class IdleSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly o: IdleSweeperOptions) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.sweep()
        .then(() => undefined)
        .catch((err: unknown) => this.o.logger.warn({ err }, 'idle session sweep failed'))
        .finally(() => (this.running = undefined));
    }, this.o.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * One pass; returns how many sessions it ended. A session that cannot be ended now (Redis
   * failing) stays active and is tried again by the next pass, event included.
   */
  async sweep(now: number = Date.now()): Promise<number> {
    const { store } = this.o;
    let ended = 0;
    for (;;) {
      // Chat sessions only: idle voice sessions are their session actors' to end, and must not fill the page.
      const ids = await store.sessions.idle(now - this.o.chatIdleTimeoutMs, 100, 'chat');
      let progressed = false;
      for (const id of ids) {
        if (await this.end(id, now)) {
          progressed = true;
          ended++;
        }
      }
      if (ids.length < 100 || !progressed) return ended;
    }
  }

  private async end(id: string, now: number): Promise<boolean> {
    const { store, recorder, logger } = this.o;
    try {
      const session = await store.sessions.get(id);
      const agent = await store.agents.getStored(session.agent_id).catch(nullIfNotFound);
      // An agent deleted meanwhile has no events_url left to tell: the session just ends.
      const done =
        agent === null
          ? await store.sessions.end(id, 'idle_timeout', now)
          : await recorder.ended(agent, id, 'idle_timeout', { error: null, session_type: 'chat' });
      return done !== null;
    } catch (err) {
      logger.warn({ err, session_id: id }, 'could not end an idle session; the next sweep retries');
      return false;
    }
  }
}
