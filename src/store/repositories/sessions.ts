import { isoNow } from '../../schemas/timestamps.js';
import { entryArg, type OutboxEntry } from '../../schemas/outbox-entry.js';
import { AppError, ConflictError, NotFoundError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import {
  sessionEndReasons,
  type Session,
  type SessionCreate,
  type SessionEndReason,
  type SessionOverview,
  type SessionStatus,
  type SessionTransport,
  type SessionType,
} from '../../schemas/session.js';
import {
  hashArgs,
  hashFromReply,
  int,
  jsonField,
  loadHashes,
  numberOrNull,
  text,
  textOrNull,
  type Hash,
} from '../hashes.js';
import { BoundedCache } from '../../primitives/bounded-cache.js';
import type { Keys } from '../keys.js';
import { matchesFields, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';
import type { AgentRepository } from './agents.js';

const createSession = new Script('create_session');
const recordTurn = new Script('record_turn');
const endSession = new Script('end_session');

export interface SessionFilter {
  agent_id?: string | undefined;
  status?: SessionStatus | undefined;
  type?: SessionType | undefined;
  user_id?: string | undefined;
}

const dayMs = 24 * 60 * 60 * 1000;

/** A session hash as the public record; `started_ms` is kept beside it for the duration. */
function fromHash(h: Hash): Session {
  return {
    id: text(h, 'id'),
    agent_id: text(h, 'agent_id'),
    type: text(h, 'type') as SessionType,
    transport: text(h, 'transport') as SessionTransport,
    status: text(h, 'status') as SessionStatus,
    user_id: textOrNull(h, 'user_id'),
    conversation_id: text(h, 'conversation_id'),
    room: textOrNull(h, 'room'),
    turns: int(h, 'turns'),
    started_at: text(h, 'started_at'),
    last_activity_at: text(h, 'last_activity_at'),
    ended_at: textOrNull(h, 'ended_at'),
    end_reason: textOrNull(h, 'end_reason') as SessionEndReason | null,
    duration_ms: numberOrNull(h, 'duration_ms'),
    metadata: jsonField(h, 'metadata', {}),
  };
}

/**
 * Chat and voice sessions. Each session owns one conversation, created with it. Active sessions
 * sit in two sorted sets scored by last activity (all, and per agent), which the idle sweeper and
 * the agent's `sessions.active` count read; ending a session takes it out, once.
 */
export class SessionRepository {
  private readonly owners = new BoundedCache<{ agentId: string; type: SessionType }>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly agents: AgentRepository,
  ) {}

  /**
   * Creates the session and its conversation atomically; 404 when the agent does not exist. With
   * `announce`, the entry it returns for the new session (its `session_start`) is written into the
   * event outbox in the same step.
   */
  async create(
    input: SessionCreate,
    now: number = Date.now(),
    announce?: (session: Session) => OutboxEntry | null,
  ): Promise<Session> {
    now = Math.round(now);
    const ts = isoNow(now);
    const session: Session = {
      id: input.id ?? newId('session', now),
      agent_id: input.agent_id,
      type: input.type,
      transport: input.transport,
      status: 'active',
      user_id: input.user_id ?? null,
      conversation_id: newId('conversation', now),
      room: input.room ?? null,
      turns: 0,
      started_at: ts,
      last_activity_at: ts,
      ended_at: null,
      end_reason: null,
      duration_ms: null,
      metadata: input.metadata ?? {},
    };
    const sessionFields = hashArgs({ ...session, metadata: JSON.stringify(session.metadata), started_ms: now });
    const conversationFields = hashArgs({
      id: session.conversation_id,
      agent_id: session.agent_id,
      session_id: session.id,
      user_id: session.user_id,
      message_count: 0,
      created_at: ts,
      updated_at: ts,
    });
    const k = this.keys;
    const result = await createSession.run(
      this.redis,
      [
        k.agent(session.agent_id),
        k.session(session.id),
        k.conversation(session.conversation_id),
        k.sessionIndex(),
        k.agentSessions(session.agent_id),
        k.sessionsActive(),
        k.agentActiveSessions(session.agent_id),
        k.conversationIndex(),
        k.agentConversations(session.agent_id),
        k.sessionStats(),
        k.agentStats(session.agent_id),
        k.sessionsActiveOfType(session.type),
        k.eventOutbox(),
      ],
      [
        session.id,
        session.conversation_id,
        now,
        session.type,
        entryArg(announce?.(session) ?? null),
        sessionFields.length,
        ...sessionFields,
        ...conversationFields,
      ],
    );
    if (result === 'ok') {
      this.owners.set(session.id, { agentId: session.agent_id, type: session.type });
      return session;
    }
    if (result === 'agent_missing') throw new NotFoundError('agent', session.agent_id);
    if (result === 'exists') throw new ConflictError(`session ${session.id} already exists`);
    throw new AppError(500, 'internal_error', `create_session replied ${String(result)}`);
  }

  async get(id: string): Promise<Session> {
    const h = await this.redis.hGetAll(this.keys.session(id));
    if (Object.keys(h).length === 0) throw new NotFoundError('session', id);
    return fromHash({ ...h });
  }

  /** Newest first; with `agent_id` it reads that agent's index (deleted agents' history included). */
  async list(query: PageQuery, filter: SessionFilter = {}): Promise<Page<Session>> {
    const index = filter.agent_id === undefined ? this.keys.sessionIndex() : this.keys.agentSessions(filter.agent_id);
    return pageByScore<Session>(
      this.redis,
      index,
      query,
      (ids) =>
        loadHashes(
          this.redis,
          ids.map((id) => this.keys.session(id)),
          fromHash,
        ),
      matchesFields(filter),
    );
  }

  /**
   * One more turn: the session's `turns` and the overview's `turns` +1, last activity now. The
   * agent's own `turns` counter is the caller's (AgentRepository.bump, with the response time).
   * A no-op on an ended session; 404 when the session does not exist.
   */
  async recordTurn(id: string, now: number = Date.now()): Promise<void> {
    await this.activity(id, 1, now);
  }

  /** Last activity now without a turn (e.g. the user spoke but got no answer), so the idle sweeper waits. */
  async touch(id: string, now: number = Date.now()): Promise<void> {
    await this.activity(id, 0, now);
  }

  /**
   * Ends an active session (ended_at, end_reason, duration_ms unless it never connected; counted in
   * the stats); null when already ended (racing instances end it once), 404 when unknown. `event`
   * (a `session_end`, completed with duration_ms and turns) and `analysisRequest` go into their
   * outboxes in the same step.
   */
  async end(
    id: string,
    reason: SessionEndReason,
    now: number = Date.now(),
    event: OutboxEntry | null = null,
    analysisRequest: string | null = null,
  ): Promise<Session | null> {
    now = Math.round(now);
    const { agentId, type } = await this.owner(id);
    const reply = await endSession.run(
      this.redis,
      [
        this.keys.session(id),
        this.keys.sessionsActive(),
        this.keys.agentActiveSessions(agentId),
        this.keys.sessionStats(),
        this.keys.sessionsActiveOfType(type),
        this.keys.eventOutbox(),
        this.keys.analysisOutbox(),
        this.keys.sessionMediaDeadlines(),
      ],
      [id, now, isoNow(now), reason, entryArg(event), analysisRequest ?? ''],
    );
    if (reply === 'ended') return null;
    if (reply === 'missing') throw new NotFoundError('session', id);
    if (!Array.isArray(reply)) throw new AppError(500, 'internal_error', `end_session replied ${String(reply)}`);
    return fromHash(hashFromReply(reply));
  }

  /**
   * Ids of active sessions whose last activity is before `olderThanMs` (Unix ms), oldest first;
   * only sessions of `type` when given (so a sweeper of idle chats is not held up by voice sessions).
   */
  async idle(olderThanMs: number, limit: number, type?: SessionType): Promise<string[]> {
    const index = type === undefined ? this.keys.sessionsActive() : this.keys.sessionsActiveOfType(type);
    return this.redis.zRange(index, '-inf', `(${olderThanMs}`, {
      BY: 'SCORE',
      LIMIT: { offset: 0, count: limit },
    });
  }

  /** Ids of an agent's active sessions, for ending them when the agent is deleted. */
  async activeOfAgent(agentId: string, limit = 1_000): Promise<string[]> {
    return this.redis.zRange(this.keys.agentActiveSessions(agentId), 0, limit - 1);
  }

  async overview(now: number = Date.now()): Promise<SessionOverview> {
    const [h, active, last24h] = await Promise.all([
      this.redis.hGetAll(this.keys.sessionStats()),
      this.redis.zCard(this.keys.sessionsActive()),
      this.redis.zCount(this.keys.sessionIndex(), now - dayMs, '+inf'),
    ]);
    const n = (name: string) => Number(h[name] ?? 0);
    const ended = n('ended');
    const ran = ended - n('never_ran'); // the mean is over sessions that ran (see end_session.lua)
    return {
      total: n('total'),
      active,
      ended,
      by_type: { chat: n('type:chat'), voice: n('type:voice') },
      by_end_reason: Object.fromEntries(sessionEndReasons.map((r) => [r, n(`end:${r}`)])) as Record<
        SessionEndReason,
        number
      >,
      avg_duration_ms: ran <= 0 ? null : Math.round(n('duration_ms_sum') / ran),
      turns: n('turns'),
      started_last_24h: last24h,
    };
  }

  private async activity(id: string, turns: number, now: number): Promise<void> {
    now = Math.round(now);
    const { agentId, type } = await this.owner(id);
    const reply = await recordTurn.run(
      this.redis,
      [
        this.keys.session(id),
        this.keys.sessionsActive(),
        this.keys.agentActiveSessions(agentId),
        this.keys.sessionStats(),
        this.keys.agentStats(agentId),
        this.keys.sessionsActiveOfType(type),
      ],
      [id, now, isoNow(now), turns],
    );
    if (reply === 'missing') throw new NotFoundError('session', id);
  }

  /** The session's agent and type (they never change, so they are cached), to name the keys a script touches. */
  private async owner(id: string): Promise<{ agentId: string; type: SessionType }> {
    const owner = await this.owners.getOrLoad(id, async () => {
      const [agentId, type] = await this.redis.hmGet(this.keys.session(id), ['agent_id', 'type']);
      return agentId === null || agentId === undefined || type === null || type === undefined
        ? undefined
        : { agentId, type: type as SessionType };
    });
    if (owner === undefined) throw new NotFoundError('session', id);
    return owner;
  }
}
