import { isoNow } from '../../schemas/timestamps.js';
import { AppError, NotFoundError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import type { ErrorRecord, ErrorRecordCreate, ErrorStatus, ErrorSummary } from '../../schemas/error-record.js';
import {
  hashArgs,
  hashFromReply,
  jsonField,
  loadHashes,
  numberOrNull,
  text,
  textOrNull,
  type Hash,
} from '../hashes.js';
import type { Keys } from '../keys.js';
import { matchesFields, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';
import type { AgentRepository } from './agents.js';

const resolveError = new Script('resolve_error');

export interface ErrorFilter {
  agent_id?: string | undefined;
  session_id?: string | undefined;
  type?: string | undefined;
  status?: ErrorStatus | undefined;
}

const dayMs = 24 * 60 * 60 * 1000;

function fromHash(h: Hash): ErrorRecord {
  return {
    id: text(h, 'id'),
    type: text(h, 'type'),
    message: text(h, 'message'),
    agent_id: textOrNull(h, 'agent_id'),
    session_id: textOrNull(h, 'session_id'),
    status_code: numberOrNull(h, 'status_code'),
    latency_ms: numberOrNull(h, 'latency_ms'),
    details: jsonField(h, 'details', {}),
    status: text(h, 'status') as ErrorStatus,
    resolved_at: textOrNull(h, 'resolved_at'),
    resolution_note: textOrNull(h, 'resolution_note'),
    created_at: text(h, 'created_at'),
  };
}

/**
 * Error records: what failed (webhook, language model, event delivery, a session), kept until an
 * operator resolves them. Counters by type and open/resolved live in one stats hash, and per agent
 * in the agent's stats (errors_total, errors_open).
 */
export class ErrorRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly agents: AgentRepository,
  ) {}

  async record(input: ErrorRecordCreate, now: number = Date.now()): Promise<ErrorRecord> {
    now = Math.round(now);
    const error: ErrorRecord = {
      id: newId('error', now),
      type: input.type,
      message: input.message,
      agent_id: input.agent_id ?? null,
      session_id: input.session_id ?? null,
      status_code: input.status_code ?? null,
      latency_ms: input.latency_ms ?? null,
      details: input.details ?? {},
      status: 'open',
      resolved_at: null,
      resolution_note: null,
      created_at: isoNow(now),
    };
    const stats = this.keys.errorStats();
    const multi = this.redis
      .multi()
      .hSet(this.keys.errorRecord(error.id), hashArgs({ ...error, details: JSON.stringify(error.details) }))
      .zAdd(this.keys.errorIndex(), { score: now, value: error.id })
      .hIncrBy(stats, 'total', 1)
      .hIncrBy(stats, 'open', 1)
      .hIncrBy(stats, `type:${error.type}:total`, 1)
      .hIncrBy(stats, `type:${error.type}:open`, 1);
    if (error.agent_id !== null) {
      multi
        .zAdd(this.keys.agentErrors(error.agent_id), { score: now, value: error.id })
        .hIncrBy(this.keys.agentStats(error.agent_id), 'errors_total', 1)
        .hIncrBy(this.keys.agentStats(error.agent_id), 'errors_open', 1);
    }
    if (error.session_id !== null)
      multi.zAdd(this.keys.sessionErrors(error.session_id), { score: now, value: error.id });
    await multi.exec();
    return error;
  }

  async get(id: string): Promise<ErrorRecord> {
    const h = await this.redis.hGetAll(this.keys.errorRecord(id));
    if (Object.keys(h).length === 0) throw new NotFoundError('error', id);
    return fromHash({ ...h });
  }

  /** Newest first; `agent_id` and `session_id` read their own indexes. */
  async list(query: PageQuery, filter: ErrorFilter = {}): Promise<Page<ErrorRecord>> {
    const index =
      filter.session_id !== undefined
        ? this.keys.sessionErrors(filter.session_id)
        : filter.agent_id !== undefined
          ? this.keys.agentErrors(filter.agent_id)
          : this.keys.errorIndex();
    return pageByScore<ErrorRecord>(
      this.redis,
      index,
      query,
      (ids) =>
        loadHashes(
          this.redis,
          ids.map((id) => this.keys.errorRecord(id)),
          fromHash,
        ),
      matchesFields(filter),
    );
  }

  /**
   * Marks an error resolved. Idempotent: resolving it again returns it unchanged (the first
   * resolved_at and note stay) and the open counters drop once. 404 when it does not exist.
   */
  async resolve(id: string, note?: string, now: number = Date.now()): Promise<ErrorRecord> {
    const agentId = await this.redis.hGet(this.keys.errorRecord(id), 'agent_id');
    const keys = [this.keys.errorRecord(id), this.keys.errorStats()];
    if (agentId !== null && agentId !== undefined) keys.push(this.keys.agentStats(agentId));
    const reply = await resolveError.run(this.redis, keys, [
      isoNow(Math.round(now)),
      note ?? '',
      note === undefined ? '0' : '1',
    ]);
    if (reply === 'missing') throw new NotFoundError('error', id);
    if (!Array.isArray(reply)) throw new AppError(500, 'internal_error', `resolve_error replied ${String(reply)}`);
    return fromHash(hashFromReply(reply));
  }

  async summary(now: number = Date.now()): Promise<ErrorSummary> {
    const [h, last24h] = await Promise.all([
      this.redis.hGetAll(this.keys.errorStats()),
      this.redis.zCount(this.keys.errorIndex(), now - dayMs, '+inf'),
    ]);
    const byType = new Map<string, { total: number; open: number }>();
    for (const [field, value] of Object.entries(h)) {
      const match = /^type:(.*):(total|open)$/.exec(field);
      if (match === null) continue;
      const entry = byType.get(match[1]!) ?? { total: 0, open: 0 };
      entry[match[2] as 'total' | 'open'] = Number(value);
      byType.set(match[1]!, entry);
    }
    const total = Number(h['total'] ?? 0);
    const open = Number(h['open'] ?? 0);
    return {
      total,
      open,
      resolved: total - open,
      by_type: Object.fromEntries([...byType].sort(([a], [b]) => a.localeCompare(b))),
      last_24h: last24h,
    };
  }
}
