/**
 * A per-process map with a size bound (cleared whole when full: the entries are cheap to re-read).
 * For facts Redis already holds that a repository looks up again and again (a session's agent and
 * type, a conversation's agent, a token's agent id) and for compiled operator JSON Schemas
 * (schemas/json-schema.ts). Never the source of truth.
 */
export class BoundedCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly maxEntries: number = 10_000) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.map.size >= this.maxEntries) this.map.clear();
    this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** The cached value, or `load()`'s when it is not cached (and then cached if not undefined). */
  async getOrLoad(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.map.get(key);
    if (cached !== undefined) return cached;
    const value = await load();
    if (value !== undefined) this.set(key, value);
    return value;
  }
}
