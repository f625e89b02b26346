import type { Capability } from '../schemas/provider-catalog.js';
import { SettledCache } from '../providers/status/settled-cache.js';
import type { Store } from '../store/store.js';
import type { AgentReadiness } from './readiness.js';

/** The agents that need one provider: how many, the first few by name, how many it cannot serve. */
export interface Demand {
  count: number;
  agents: { id: string; name: string }[];
  /** Agents whose section of this provider cannot run here (model missing, not configured). */
  unserved: number;
}

/** Agents named per provider; the rest are counted. */
const namedPerProvider = 20;
const pageSize = 200;

/**
 * Which agents need which provider (voice: STT and TTS; enhanced mode: the LLM), for
 * /health/providers. Every agent is read, so the answer is reused for `ttlMs` after it is made: a
 * public health endpoint cannot be used to make Parley read all agents in a loop. It is made again
 * at once when the local models change (`modelsKey`: the registry's model snapshot), so
 * `unserved` agrees with readiness and the provider checks at every moment.
 */
export class ProviderDemand {
  private readonly cache: SettledCache<Map<string, Demand>>;
  /** The model snapshot the cached answer was made from. */
  private madeFor: string | undefined;

  constructor(
    private readonly store: Pick<Store, 'agents'>,
    private readonly readiness: Pick<AgentReadiness, 'needs'>,
    private readonly modelsKey: () => Promise<string>,
    ttlMs = 5_000,
  ) {
    this.cache = new SettledCache(ttlMs);
  }

  /** Demand per `capability:provider`. */
  async byProvider(): Promise<Map<string, Demand>> {
    const key = await this.modelsKey();
    if (key !== this.madeFor) {
      this.cache.clear();
      this.madeFor = key;
    }
    return this.cache.get(() => this.read());
  }

  /** Forgets the answer after an agent or preset changed here (other processes see it within `ttlMs`). */
  forget(): void {
    this.cache.clear();
  }

  static key(capability: Capability, provider: string): string {
    return `${capability}:${provider}`;
  }

  private async read(): Promise<Map<string, Demand>> {
    const demand = new Map<string, Demand>();
    let cursor: string | undefined;
    do {
      const page = await this.store.agents.list({ limit: pageSize, cursor });
      const needs = await Promise.all(page.data.map((agent) => this.readiness.needs(agent)));
      page.data.forEach((agent, i) => {
        for (const need of needs[i]!) {
          const key = ProviderDemand.key(need.capability, need.provider);
          const entry = demand.get(key) ?? { count: 0, agents: [], unserved: 0 };
          entry.count += 1;
          if (entry.agents.length < namedPerProvider) entry.agents.push({ id: agent.id, name: agent.name });
          if (need.problem !== null) entry.unserved += 1;
          demand.set(key, entry);
        }
      });
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return demand;
  }
}
