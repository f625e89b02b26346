import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { SessionLeaseRepository } from '../store/repositories/session-leases.js';

/** A name for this process as a lease holder: host, pid and a random part (a restarted process is a new holder). */
export function newInstanceId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

export interface LeaseKeeperOptions {
  leases: Pick<SessionLeaseRepository, 'renew'>;
  /** This process's holder name. */
  holder: string;
  ttlMs: number;
  /** Ids of the sessions this process holds now. */
  held: () => string[];
  /** Called with the ids whose lease this process no longer holds (a reaper took it, or the session has ended). */
  lost: (sessionIds: string[]) => void;
  logger: Logger;
  /** Delay before retrying a failed renewal (default 1 s, at most the renewal period). */
  retryMs?: number;
}

/**
 * Renews this process's session leases every third of their TTL. A failed renewal (Redis
 * unreachable) is retried every second and never ends a session: a lease expires only when no
 * renewal succeeds for a whole TTL, so an outage shorter than two thirds of the TTL costs nothing.
 */
export class LeaseKeeper {
  /** The renewal period: a third of the TTL. */
  readonly renewEveryMs: number;
  private readonly retryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private failing = false;
  private stopped = true;

  constructor(private readonly o: LeaseKeeperOptions) {
    this.renewEveryMs = Math.max(1, Math.floor(o.ttlMs / 3));
    this.retryMs = Math.min(o.retryMs ?? 1_000, this.renewEveryMs);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.renewEveryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One renewal of every held lease; false when Redis could not be reached. */
  async renew(): Promise<boolean> {
    const ids = this.o.held();
    try {
      const lost = await this.o.leases.renew(ids, this.o.holder, this.o.ttlMs);
      if (this.failing) this.o.logger.info({ sessions: ids.length }, 'session leases renewed again');
      this.failing = false;
      if (lost.length > 0) this.o.lost(lost);
      return true;
    } catch (err) {
      if (!this.failing) {
        this.o.logger.warn(
          { err, sessions: ids.length, ttl_ms: this.o.ttlMs },
          'could not renew session leases; retrying (sessions keep running)',
        );
      }
      this.failing = true;
      return false;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.renew().then((ok) => {
        this.running = undefined;
        this.schedule(ok ? this.renewEveryMs : this.retryMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
