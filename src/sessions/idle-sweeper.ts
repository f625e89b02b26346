import type { Logger } from 'pino';
import type { EventOutbox } from '../events/outbox.js';
import type { Store } from '../store/store.js';

export interface IdleSweeperOptions {
  store: Store;
  outbox: EventOutbox;
  logger: Logger;
  /** A chat session with no message for this long is ended (`idle_timeout`). */
  chatIdleTimeoutMs: number;
  intervalMs: number;
}

/**
 * Ends chat sessions nobody has written to for `chatIdleTimeoutMs` and queues their `session_end`.
 * Every instance may sweep: ending is atomic and idempotent in Redis, so each session ends once.
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

  /** One pass; returns how many sessions it ended. */
  async sweep(now: number = Date.now()): Promise<number> {
    const { store, outbox } = this.o;
    let ended = 0;
    for (;;) {
      // Chat sessions only: idle voice sessions are their session actors' to end, and must not fill the page.
      const ids = await store.sessions.idle(now - this.o.chatIdleTimeoutMs, 100, 'chat');
      let progressed = false;
      for (const id of ids) {
        const done = await store.sessions.end(id, 'idle_timeout', now).catch(() => null);
        if (done === null) continue;
        progressed = true;
        ended++;
        const agent = await store.agents.getStored(done.agent_id).catch(() => null);
        if (agent !== null) {
          outbox.emit(agent, 'session_end', done.id, {
            reason: done.end_reason,
            duration_ms: done.duration_ms,
            turns: done.turns,
            session_type: done.type,
          });
        }
      }
      if (ids.length < 100 || !progressed) return ended;
    }
  }
}
