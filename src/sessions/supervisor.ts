import type { Logger } from 'pino';
import type { StoredAgent } from '../schemas/agent.js';
import type { Session, SessionEndReason } from '../schemas/session.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { Store } from '../store/store.js';
import type { TurnRecorder } from '../session-writes/turn-recorder.js';
import { LeaseKeeper, newInstanceId } from './lease-keeper.js';

/** What the supervisor needs of a running session (VoiceSession in production). */
export interface LiveSession {
  /** Resolves with the reason once the session has ended and recorded its end. */
  readonly done: Promise<SessionEndReason>;
  /** Ends the session cleanly (server shutdown, or its lease was lost). */
  shutdown(): void;
}

/** Starts a session on a connected transport. */
export type StartSession = (agent: StoredAgent, session: Session, transport: MediaTransport) => Promise<LiveSession>;

/** Why a media connection was not given its session. */
export type AttachRefusal =
  /** This process is shutting down. */
  | 'shutting_down'
  /** The session already has a media connection (here or on another instance). */
  | 'already_connected'
  /** The session has ended, or its connect window or owner's lease ran out (it is being ended). */
  | 'session_ended'
  /** Redis could not be reached to claim the session. */
  | 'store_unavailable'
  /** The session could not be started; it was ended with reason `error` and an error record. */
  | 'failed';

export type AttachResult = { ok: true } | { ok: false; refusal: AttachRefusal };

export interface SupervisorOptions {
  store: Pick<Store, 'leases' | 'errors'>;
  recorder: Pick<TurnRecorder, 'ended'>;
  logger: Logger;
  /** Lease TTL (PARLEY_SESSION_LEASE_TTL_MS); renewed every third of it. */
  leaseTtlMs: number;
  start: StartSession;
  /** Told when a claim found a session's connect window or lease expired, so a reaper ends it now. */
  onExpired?: (() => void) | undefined;
  /** This process's lease holder name (default: host/pid/random). */
  holder?: string | undefined;
}

interface Entry {
  agent: StoredAgent;
  /** The transport the session runs on (for the live-session gauge). */
  transport: MediaTransport['kind'];
  /** Set once the session runs; undefined while it is being claimed and started. */
  live: LiveSession | undefined;
  /** True once this process holds the session's lease. */
  claimed: boolean;
  /** Shut down as soon as it has started (drain or a lost lease during start). */
  stopRequested: boolean;
  /** Resolves when the entry is gone (session ended and lease released, or attach refused). */
  gone: Promise<void>;
  resolveGone: () => void;
}

/**
 * The live voice sessions of this process, one root actor each. A session is reserved in this
 * process before anything is awaited (so two connections racing here cannot both get it) and
 * claimed through a Redis lease (so two instances cannot either). The lease is renewed while the
 * session runs and released once its end is recorded. A session that fails ends alone (reason
 * `error`, with an error record); `drain` ends every session cleanly for shutdown.
 */
export class SessionSupervisor {
  readonly holder: string;
  private readonly live = new Map<string, Entry>();
  private readonly keeper: LeaseKeeper;
  private accepting = true;

  constructor(private readonly o: SupervisorOptions) {
    this.holder = o.holder ?? newInstanceId();
    this.keeper = new LeaseKeeper({
      leases: o.store.leases,
      holder: this.holder,
      ttlMs: o.leaseTtlMs,
      held: () => [...this.live].filter(([, e]) => e.claimed).map(([id]) => id),
      lost: (ids) => this.lost(ids),
      logger: o.logger,
    });
  }

  /** Sessions of this process, running or being started. */
  get size(): number {
    return this.live.size;
  }

  has(sessionId: string): boolean {
    return this.live.has(sessionId);
  }

  /** Running sessions of this process by transport. */
  countByTransport(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const entry of this.live.values())
      if (entry.live !== undefined) counts.set(entry.transport, (counts.get(entry.transport) ?? 0) + 1);
    return counts;
  }

  /** Starts renewing leases. */
  start(): void {
    this.keeper.start();
  }

  /** Runs a session on a connected transport, unless refused (the caller closes the transport then). */
  async attach(agent: StoredAgent, session: Session, transport: MediaTransport): Promise<AttachResult> {
    const id = session.id;
    if (!this.accepting) return refused('shutting_down');
    if (this.live.has(id)) return refused('already_connected');
    let resolveGone!: () => void;
    const gone = new Promise<void>((resolve) => (resolveGone = resolve));
    const entry: Entry = {
      agent,
      transport: transport.kind,
      live: undefined,
      claimed: false,
      stopRequested: false,
      gone,
      resolveGone,
    };
    this.live.set(id, entry); // reserved before the first await

    let claim;
    try {
      claim = await this.o.store.leases.claim(id, this.holder, this.o.leaseTtlMs);
    } catch (err) {
      this.o.logger.error({ err, session_id: id }, 'could not claim the session for a media connection');
      this.forget(id, entry);
      return refused('store_unavailable');
    }
    if (claim !== 'ok') {
      this.forget(id, entry);
      if (claim === 'expired') this.o.onExpired?.();
      return refused(claim === 'taken' ? 'already_connected' : 'session_ended');
    }
    entry.claimed = true;

    let live: LiveSession;
    try {
      live = await this.o.start(agent, session, transport);
    } catch (err) {
      await this.failedToStart(id, entry, err);
      return refused('failed');
    }
    entry.live = live;
    if (!this.accepting || entry.stopRequested) live.shutdown();
    void live.done.then(
      (reason) => this.finished(id, entry, reason),
      (err: unknown) => {
        this.o.logger.error({ err, session_id: id }, 'voice session ended with an exception');
        return this.finished(id, entry, 'error');
      },
    );
    return { ok: true };
  }

  /** Stops taking sessions and ends the live ones; resolves when all have ended or after timeoutMs. */
  async drain(timeoutMs: number): Promise<void> {
    this.accepting = false;
    const entries = [...this.live.values()];
    for (const entry of entries) this.stop(entry);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(entries.map((e) => e.gone)),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    // Sessions still open keep their leases unrenewed: another instance, or the next start, ends them (`owner_lost`).
    await this.keeper.stop();
    if (this.live.size > 0)
      this.o.logger.warn({ left: this.live.size }, 'voice sessions still open after the drain timeout');
  }

  private stop(entry: Entry): void {
    if (entry.live === undefined) entry.stopRequested = true;
    else entry.live.shutdown();
  }

  /** Leases found lost on renewal: those sessions stop here (whoever took the lease records their end). */
  private lost(ids: string[]): void {
    for (const id of ids) {
      const entry = this.live.get(id);
      if (entry === undefined) continue;
      this.o.logger.warn(
        { session_id: id },
        'session lease lost (ended elsewhere or taken after expiry); stopping it here',
      );
      this.stop(entry);
    }
  }

  private async failedToStart(id: string, entry: Entry, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    this.o.logger.error({ err, session_id: id }, 'voice session failed to start');
    await this.o.store.errors
      .record({
        type: 'session_failed',
        message: `voice session failed to start: ${message}`,
        agent_id: entry.agent.id,
        session_id: id,
      })
      .catch((e: unknown) => this.o.logger.error({ err: e, session_id: id }, 'could not record a session failure'));
    await this.finished(id, entry, 'error', message);
  }

  /**
   * The session is over: stop renewing, make sure its end is recorded, release the lease. When the
   * end cannot be written (Redis down), the lease stays and expires, and a reaper ends the session.
   */
  private async finished(
    id: string,
    entry: Entry,
    reason: SessionEndReason,
    error: string | null = null,
  ): Promise<void> {
    entry.claimed = false;
    this.live.delete(id);
    const { leases } = this.o.store;
    try {
      let released = await leases.release(id, this.holder);
      if (released === 'active') {
        // The session's own end record was not written (or it never started): write it here.
        await this.o.recorder.ended(entry.agent, id, reason, { error, session_type: 'voice' });
        released = await leases.release(id, this.holder);
      }
      // not_holder: a reaper took the lease (it records the end); active: the end could not be recorded.
      if (released === 'active')
        this.o.logger.warn({ session_id: id }, 'session end not recorded; its lease expires and a reaper ends it');
    } catch (err) {
      this.o.logger.warn(
        { err, session_id: id },
        'could not record the end or release the lease of a session; its lease expires and a reaper ends it',
      );
    } finally {
      entry.resolveGone();
    }
  }

  /** Drops a reservation that never became a session. */
  private forget(id: string, entry: Entry): void {
    this.live.delete(id);
    entry.resolveGone();
  }
}

function refused(refusal: AttachRefusal): AttachResult {
  return { ok: false, refusal };
}
