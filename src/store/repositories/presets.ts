import { isoNow } from '../../schemas/timestamps.js';
import { ConflictError, NotFoundError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import {
  defaultPresetSettings,
  type Preset,
  type PresetCreate,
  type PresetPatch,
  type StoredPreset,
} from '../../schemas/preset.js';
import type { Keys } from '../keys.js';
import { loadJson, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const deletePreset = new Script('delete_preset');
const compareAndSet = new Script('compare_and_set');
const maxRetries = 5;

export class PresetRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** `sections`: the STT, LLM and TTS settings a section left out of `input` takes (the built-in preset's). */
  async create(
    input: PresetCreate,
    sections: Pick<StoredPreset, 'stt' | 'llm' | 'tts'>,
    now: number = Date.now(),
  ): Promise<Preset> {
    const ts = isoNow(now);
    const stored: StoredPreset = {
      id: newId('preset', now),
      ...defaultPresetSettings,
      ...sections,
      ...input,
      created_at: ts,
      updated_at: ts,
    };
    await this.redis
      .multi()
      .set(this.keys.preset(stored.id), JSON.stringify(stored))
      .zAdd(this.keys.presetIndex(), { score: now, value: stored.id })
      .exec();
    return { ...stored, agent_count: 0 };
  }

  /** The stored settings without the usage count, for the pipeline. */
  async getStored(id: string): Promise<StoredPreset> {
    const raw = await this.redis.get(this.keys.preset(id));
    if (raw === null) throw new NotFoundError('preset', id);
    return JSON.parse(raw) as StoredPreset;
  }

  async get(id: string): Promise<Preset> {
    const [stored, count] = await Promise.all([this.getStored(id), this.redis.sCard(this.keys.presetAgents(id))]);
    return { ...stored, agent_count: count };
  }

  async list(query: PageQuery, filter: { q?: string | undefined } = {}): Promise<Page<Preset>> {
    const q = filter.q?.toLowerCase();
    const page = await pageByScore<StoredPreset>(
      this.redis,
      this.keys.presetIndex(),
      query,
      (ids) =>
        loadJson<StoredPreset>(
          this.redis,
          ids.map((id) => this.keys.preset(id)),
        ),
      (p) => q === undefined || p.name.toLowerCase().includes(q),
    );
    const counts = await Promise.all(page.data.map((p) => this.redis.sCard(this.keys.presetAgents(p.id))));
    return { data: page.data.map((p, i) => ({ ...p, agent_count: counts[i] ?? 0 })), next_cursor: page.next_cursor };
  }

  async update(id: string, patch: PresetPatch, now: number = Date.now()): Promise<Preset> {
    for (let attempt = 0; attempt < maxRetries; attempt++) {
      const raw = await this.redis.get(this.keys.preset(id));
      if (raw === null) throw new NotFoundError('preset', id);
      const next: StoredPreset = { ...(JSON.parse(raw) as StoredPreset), ...patch, updated_at: isoNow(now) };
      const result = await compareAndSet.run(this.redis, [this.keys.preset(id)], [raw, JSON.stringify(next)]);
      if (result === 'ok') return this.get(id);
      if (result === 'missing') throw new NotFoundError('preset', id);
    }
    throw new ConflictError('preset is being changed concurrently; retry');
  }

  /** Ids of the agents that use the preset. */
  async agentIds(id: string): Promise<string[]> {
    return this.redis.sMembers(this.keys.presetAgents(id));
  }

  /** Refuses with 409 while agents use the preset; the details list them. */
  async delete(id: string): Promise<void> {
    const reply = (await deletePreset.run(
      this.redis,
      [this.keys.preset(id), this.keys.presetIndex(), this.keys.presetAgents(id)],
      [id],
    )) as string[];
    const [status, ...agents] = reply;
    if (status === 'ok') return;
    if (status === 'missing') throw new NotFoundError('preset', id);
    if (status === 'in_use') {
      throw new ConflictError(`preset ${id} is used by ${agents.length} agent(s); move them to another preset first`, {
        agent_ids: agents,
      });
    }
    throw new Error(`delete_preset replied ${String(status)}`);
  }
}
