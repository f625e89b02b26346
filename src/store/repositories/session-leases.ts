import type { Keys } from '../keys.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const awaitMedia = new Script('await_session_media');
const claimLease = new Script('claim_session_lease');
const renewLeases = new Script('renew_session_leases', { durable: false });
const releaseLease = new Script('release_session_lease');
const takeExpired = new Script('take_expired_sessions');
const countLive = new Script('count_live_sessions', { durable: false });

/** Why a claim was refused, or `ok`. */
export type ClaimResult = 'ok' | 'missing' | 'ended' | 'taken' | 'expired';

/** What `release` did: a lease is only given up once its session has ended. */
export type ReleaseResult = 'released' | 'active' | 'not_holder';

/** Reasons the reaper ends a session for. */
export type ReapReason = 'never_connected' | 'owner_lost';

export interface ExpiredSession {
  sessionId: string;
  reason: ReapReason;
}

/**
 * Who runs each live voice session, in Redis, so it holds across processes and restarts:
 *
 * - a new voice session waits in `media-deadlines` (scored by its connect deadline) until a process
 *   claims it for its media connection;
 * - the claim moves it into `leases` (scored by lease expiry) with its holder (the process's
 *   instance id) in `lease-holders`; the holder renews it while the session runs and releases it
 *   once the session has ended;
 * - a deadline that passes, or a lease that expires (its holder died), is taken by a reaper, which
 *   ends the session (`never_connected`, `owner_lost`).
 *
 * Every time comes from Redis (`TIME`), so instances with skewed clocks agree.
 */
export class SessionLeaseRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Opens the connect window of a voice session; call before creating its record. Returns the deadline (Unix ms). */
  async awaitMedia(sessionId: string, windowMs: number): Promise<number> {
    const deadline = await awaitMedia.run(this.redis, [this.keys.sessionMediaDeadlines()], [sessionId, windowMs]);
    return Number(deadline);
  }

  /** Takes the session for `holder`'s one media connection. */
  async claim(sessionId: string, holder: string, ttlMs: number): Promise<ClaimResult> {
    const k = this.keys;
    const reply = await claimLease.run(
      this.redis,
      [k.session(sessionId), k.sessionMediaDeadlines(), k.sessionLeases(), k.sessionLeaseHolders()],
      [sessionId, holder, ttlMs],
    );
    return reply as ClaimResult;
  }

  /** Extends `holder`'s leases of `sessionIds`; returns the ids whose lease it no longer holds. */
  async renew(sessionIds: readonly string[], holder: string, ttlMs: number): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const k = this.keys;
    const reply = await renewLeases.run(
      this.redis,
      [k.sessionLeases(), k.sessionLeaseHolders(), ...sessionIds.map((id) => k.session(id))],
      [holder, ttlMs, ...sessionIds],
    );
    return reply as string[];
  }

  /** Gives up `holder`'s lease of an ended session (an active one keeps it: see release_session_lease.lua). */
  async release(sessionId: string, holder: string): Promise<ReleaseResult> {
    const k = this.keys;
    const reply = await releaseLease.run(
      this.redis,
      [k.session(sessionId), k.sessionLeases(), k.sessionLeaseHolders()],
      [sessionId, holder],
    );
    return reply as ReleaseResult;
  }

  /**
   * Sessions to end, each held for the caller for `holdMs` (release them with `reapHolder(reason)`
   * once ended). Expired leases only when `includeLeases` (see SessionReaper on why it waits).
   */
  async takeExpired(holdMs: number, limit: number, includeLeases: boolean): Promise<ExpiredSession[]> {
    const k = this.keys;
    const reply = (await takeExpired.run(
      this.redis,
      [k.sessionMediaDeadlines(), k.sessionLeases(), k.sessionLeaseHolders()],
      [holdMs, limit, includeLeases ? 1 : 0],
    )) as string[];
    const taken: ExpiredSession[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2)
      taken.push({ sessionId: reply[i]!, reason: reply[i + 1] as ReapReason });
    return taken;
  }

  /** Who holds the session's lease (an instance id, or `reaping:<reason>`); null when nobody has claimed it. */
  async holderOf(sessionId: string): Promise<string | null> {
    return (await this.redis.hGet(this.keys.sessionLeaseHolders(), sessionId)) ?? null;
  }

  /** Sessions running in some process now (unexpired leases held by a process), on all replicas. */
  async countLive(): Promise<number> {
    return Number(await countLive.run(this.redis, [this.keys.sessionLeases(), this.keys.sessionLeaseHolders()], []));
  }
}

/** The holder name a reaper's hold on a session carries. */
export function reapHolder(reason: ReapReason): string {
  return `reaping:${reason}`;
}
