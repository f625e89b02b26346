import { createHash } from 'node:crypto';
import { isoNow } from '../../schemas/timestamps.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/app-errors.js';
import { newAgentToken, newId } from '../../ids/new-id.js';
import {
  defaultAgentSettings,
  toPublicAgent,
  withSettingDefaults,
  type Agent,
  type AgentCreate,
  type AgentPatch,
  type AgentStats,
  type StoredAgent,
} from '../../schemas/agent.js';
import { BoundedCache } from '../../primitives/bounded-cache.js';
import type { Keys } from '../keys.js';
import { loadJson, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const saveAgent = new Script('save_agent');
const deleteAgent = new Script('delete_agent');

export interface AgentFilter {
  mode?: 'enhanced' | 'passthrough' | undefined;
  preset_id?: string | undefined;
  q?: string | undefined;
}

/** Counters kept per agent in a hash; callers bump them with `recordActivity`. */
export type AgentCounter =
  | 'sessions_total'
  | 'sessions_chat'
  | 'sessions_voice'
  | 'messages_user'
  | 'messages_agent'
  | 'turns'
  | 'interrupted_turns'
  | 'errors_total'
  | 'errors_open'
  | 'response_ms_sum'
  | 'response_ms_count';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const maxRetries = 5;

export class AgentRepository {
  private readonly tokenIds = new BoundedCache<string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async create(input: AgentCreate, now: number = Date.now()): Promise<Agent> {
    const ts = isoNow(now);
    const stored: StoredAgent = {
      id: newId('agent', now),
      ...defaultAgentSettings,
      webhook_api_key: null,
      ...input,
      agent_token: newAgentToken(),
      created_at: ts,
      updated_at: ts,
    };
    await this.save(stored, null, now);
    return toPublicAgent(stored);
  }

  async get(id: string): Promise<Agent> {
    return toPublicAgent(await this.getStored(id));
  }

  /** The full record with the webhook key, for the services that call the webhook. */
  async getStored(id: string): Promise<StoredAgent> {
    const raw = await this.redis.get(this.keys.agent(id));
    if (raw === null) throw new NotFoundError('agent', id);
    return withSettingDefaults(JSON.parse(raw) as StoredAgent);
  }

  /** The agent a token belongs to, or null: for SDK authentication. */
  async findByToken(token: string): Promise<StoredAgent | null> {
    const id = await this.idForToken(token);
    return id === null ? null : this.verifyToken(id, token);
  }

  /**
   * The agent id a token maps to, from a per-process cache or Redis. A cached id is only a hint:
   * `verifyToken` reads the record, so a regenerated or deleted token stops working at once.
   */
  async idForToken(token: string): Promise<string | null> {
    const hash = hashToken(token);
    const id = await this.tokenIds.getOrLoad(
      hash,
      async () => (await this.redis.get(this.keys.agentToken(hash))) ?? undefined,
    );
    return id ?? null;
  }

  /** The agent record if `token` is its current token, else null (and the cache forgets it). */
  async verifyToken(id: string, token: string): Promise<StoredAgent | null> {
    const raw = await this.redis.get(this.keys.agent(id));
    const agent = raw === null ? null : withSettingDefaults(JSON.parse(raw) as StoredAgent);
    if (agent !== null && agent.agent_token === token) return agent;
    this.tokenIds.delete(hashToken(token));
    return null;
  }

  /** The agent answering calls to `number` (E.164), or null: for the telephony webhook. */
  async findByPhoneNumber(number: string): Promise<StoredAgent | null> {
    const id = await this.redis.hGet(this.keys.agentPhones(), number);
    if (id === null || id === undefined) return null;
    const raw = await this.redis.get(this.keys.agent(id));
    if (raw === null) return null;
    const agent = withSettingDefaults(JSON.parse(raw) as StoredAgent);
    return agent.phone_numbers.includes(number) ? agent : null;
  }

  async list(query: PageQuery, filter: AgentFilter = {}): Promise<Page<Agent>> {
    const q = filter.q?.toLowerCase();
    const page = await pageByScore<StoredAgent>(
      this.redis,
      this.keys.agentIndex(),
      query,
      (ids) =>
        loadJson<StoredAgent>(
          this.redis,
          ids.map((id) => this.keys.agent(id)),
        ),
      (a) =>
        (filter.mode === undefined || a.mode === filter.mode) &&
        (filter.preset_id === undefined || a.preset_id === filter.preset_id) &&
        (q === undefined || a.name.toLowerCase().includes(q)),
    );
    return { data: page.data.map(toPublicAgent), next_cursor: page.next_cursor };
  }

  async update(id: string, patch: AgentPatch, now: number = Date.now()): Promise<Agent> {
    return this.modify(id, (current) => ({ ...current, ...patch, updated_at: isoNow(now) }));
  }

  async regenerateToken(id: string, now: number = Date.now()): Promise<Agent> {
    return this.modify(id, (current) => ({ ...current, agent_token: newAgentToken(), updated_at: isoNow(now) }));
  }

  /** Deletes the agent and revokes its token atomically; returns the record as it was deleted. */
  async delete(id: string): Promise<StoredAgent> {
    for (let attempt = 0; attempt < maxRetries; attempt++) {
      const raw = await this.redis.get(this.keys.agent(id));
      if (raw === null) throw new NotFoundError('agent', id);
      const current = JSON.parse(raw) as StoredAgent;
      const result = await deleteAgent.run(
        this.redis,
        [
          this.keys.agent(id),
          this.keys.agentIndex(),
          this.keys.agentToken(hashToken(current.agent_token)),
          this.keys.presetAgents(current.preset_id ?? 'none'),
          this.keys.agentPhones(),
        ],
        [id, raw, JSON.stringify(withSettingDefaults(current).phone_numbers)],
      );
      if (result === 'ok') return current;
      if (result === 'missing') throw new NotFoundError('agent', id);
    }
    throw new ConflictError('agent is being changed concurrently; retry');
  }

  async bump(id: string, counters: Partial<Record<AgentCounter, number>>, now: number = Date.now()): Promise<void> {
    const multi = this.redis.multi();
    for (const [name, by] of Object.entries(counters)) {
      if (by !== undefined && by !== 0) multi.hIncrBy(this.keys.agentStats(id), name, by);
    }
    multi.hSet(this.keys.agentStats(id), 'last_active_ms', String(now));
    await multi.exec();
  }

  async stats(id: string): Promise<AgentStats> {
    await this.getStored(id);
    const [h, active] = await Promise.all([
      this.redis.hGetAll(this.keys.agentStats(id)),
      this.redis.zCard(this.keys.agentActiveSessions(id)),
    ]);
    const n = (k: string) => Number(h[k] ?? 0);
    const count = n('response_ms_count');
    return {
      agent_id: id,
      sessions: { total: n('sessions_total'), active, chat: n('sessions_chat'), voice: n('sessions_voice') },
      messages: { user: n('messages_user'), agent: n('messages_agent') },
      turns: n('turns'),
      interrupted_turns: n('interrupted_turns'),
      errors: { total: n('errors_total'), open: n('errors_open') },
      avg_response_ms: count === 0 ? null : Math.round((n('response_ms_sum') / count) * 10) / 10,
      last_active_at: h['last_active_ms'] === undefined ? null : isoNow(Number(h['last_active_ms'])),
    };
  }

  private async modify(id: string, change: (current: StoredAgent) => StoredAgent): Promise<Agent> {
    for (let attempt = 0; attempt < maxRetries; attempt++) {
      const raw = await this.redis.get(this.keys.agent(id));
      if (raw === null) throw new NotFoundError('agent', id);
      const current = JSON.parse(raw) as StoredAgent;
      const next = change(current);
      if (await this.save(next, { raw, record: current }, Date.parse(current.created_at))) return toPublicAgent(next);
    }
    throw new ConflictError('agent is being changed concurrently; retry');
  }

  /** Writes through save_agent.lua; false when the record changed underneath (caller retries). */
  private async save(
    next: StoredAgent,
    previous: { raw: string; record: StoredAgent } | null,
    score: number,
  ): Promise<boolean> {
    const oldToken = previous?.record.agent_token ?? next.agent_token;
    const result = await saveAgent.run(
      this.redis,
      [
        this.keys.agent(next.id),
        this.keys.agentIndex(),
        this.keys.agentToken(hashToken(next.agent_token)),
        this.keys.agentToken(hashToken(oldToken)),
        this.keys.preset(next.preset_id ?? 'none'),
        this.keys.presetAgents(next.preset_id ?? 'none'),
        this.keys.presetAgents(previous?.record.preset_id ?? 'none'),
        this.keys.agentPhones(),
      ],
      [
        next.id,
        JSON.stringify(next),
        previous?.raw ?? '',
        score,
        next.preset_id ?? '',
        previous?.record.preset_id ?? '',
        JSON.stringify(next.phone_numbers),
        JSON.stringify(previous === null ? [] : withSettingDefaults(previous.record).phone_numbers),
      ],
    );
    if (Array.isArray(result) && result[0] === 'phone_taken')
      throw new ConflictError(`phone number ${String(result[1])} already belongs to agent ${String(result[2])}`);
    switch (result) {
      case 'ok':
        return true;
      case 'stale':
        return false;
      case 'missing':
        throw new NotFoundError('agent', next.id);
      case 'preset_missing':
        // Same path as the route's own body validation reports for this field.
        throw new ValidationError([{ path: 'body.preset_id', message: `preset ${next.preset_id} does not exist` }]);
      default:
        throw new Error(`save_agent replied ${String(result)}`);
    }
  }
}
