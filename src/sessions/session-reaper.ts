import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import { reapHolder, type ReapReason } from '../store/repositories/session-leases.js';
import type { Store } from '../store/store.js';
import type { TurnRecorder } from '../session-writes/turn-recorder.js';

export interface SessionReaperOptions {
  store: Pick<Store, 'leases' | 'sessions' | 'agents'>;
  recorder: Pick<TurnRecorder, 'ended'>;
  logger: Logger;
  /** PARLEY_SESSION_SWEEP_INTERVAL_MS, capped at the lease renewal period. */
  intervalMs: number;
  /** PARLEY_SESSION_LEASE_TTL_MS. */
  leaseTtlMs: number;
}

/** Sessions taken per script call. */
const batch = 100;

/**
 * After Redis comes back, how long a live holder may take to renew: its client's reconnect backoff
 * (at most 2 s, src/store/redis.ts) plus one renewal retry (1 s), with margin.
 */
const reconnectAllowanceMs = 5_000;

/**
 * Ends voice sessions nobody runs: those not connected within their connect window
 * (`never_connected`) and those whose owner's lease expired (`owner_lost`: the process died, or
 * lost Redis for longer than the TTL), each with its `session_end` event. Every instance runs
 * one; the take is atomic in Redis, so each session is ended once.
 *
 * Expired leases are taken only after Redis has answered this reaper without a failure for the
 * longer of one renewal period (a third of the TTL) and 5 s: after an outage, live owners renew
 * within that time, so only the leases of owners that are really gone are still expired then. A
 * new process waits the same time after its first sweep. Sweeps run at least once per renewal
 * period, so an outage long enough to expire a lease is always noticed.
 */
export class SessionReaper {
  /** How long Redis must have been reachable before expired leases are taken. */
  readonly settleMs: number;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private reachableSince: number | undefined;
  private again = false;

  constructor(private readonly o: SessionReaperOptions) {
    const renewEveryMs = Math.floor(o.leaseTtlMs / 3);
    this.settleMs = Math.max(renewEveryMs, reconnectAllowanceMs);
    this.intervalMs = Math.min(o.intervalMs, renewEveryMs);
  }

  start(): void {
    this.timer ??= setInterval(() => this.sweepSoon(), this.intervalMs);
    this.timer.unref();
    this.sweepSoon();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.again = false;
    await this.running;
  }

  /** Sweeps now, or right after the sweep under way; failures are logged. */
  sweepSoon(): void {
    if (this.running !== undefined) {
      this.again = this.timer !== undefined;
      return;
    }
    this.running = this.sweep()
      .catch((err: unknown) => {
        this.o.logger.warn({ err }, 'session reaper sweep failed');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.sweepSoon();
        }
      });
  }

  /** One pass; returns how many sessions it ended. */
  async sweep(now: number = performance.now()): Promise<number> {
    const includeLeases = this.reachableSince !== undefined && now - this.reachableSince >= this.settleMs;
    let ended = 0;
    for (;;) {
      let taken;
      try {
        taken = await this.o.store.leases.takeExpired(this.o.leaseTtlMs, batch, includeLeases);
      } catch (err) {
        this.reachableSince = undefined;
        throw err;
      }
      this.reachableSince ??= now;
      for (const { sessionId, reason } of taken) if (await this.end(sessionId, reason)) ended++;
      if (taken.length < batch) return ended;
    }
  }

  /** Ends one taken session and releases the hold; true when this call ended it. */
  private async end(sessionId: string, reason: ReapReason): Promise<boolean> {
    const { store, recorder, logger } = this.o;
    try {
      const session = await store.sessions.get(sessionId).catch(nullIfNotFound);
      let ended = false;
      if (session?.status === 'active') {
        const agent = await store.agents.getStored(session.agent_id).catch(nullIfNotFound);
        if (agent === null) {
          // No agent, so no events address to announce it to; deleting an agent normally ends its sessions itself.
          ended = (await store.sessions.end(sessionId, reason)) !== null;
        } else {
          ended =
            (await recorder.ended(agent, sessionId, reason, { error: null, session_type: session.type })) !== null;
        }
        if (ended) logger.info({ session_id: sessionId, reason }, 'ended a voice session nobody runs');
      }
      await store.leases.release(sessionId, reapHolder(reason));
      return ended;
    } catch (err) {
      logger.warn(
        { err, session_id: sessionId, reason },
        'could not end an expired session; retried when its hold expires',
      );
      return false;
    }
  }
}
