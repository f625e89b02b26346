import type { Redis } from './redis.js';

/**
 * Records whose fields change in place (sessions, conversations, error records) are Redis hashes,
 * so Lua scripts update single fields (HINCRBY, HSET) without re-encoding JSON. A null field is
 * an absent field; nested values (metadata, details) are JSON strings.
 */
export type Hash = Record<string, string>;

type FieldValue = string | number | null | undefined;

/** Field/value pairs for HSET, leaving out nulls and undefined. */
export function hashArgs(fields: Record<string, FieldValue>): string[] {
  const args: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    args.push(name, String(value));
  }
  return args;
}

/** HGETALL of many keys in one round trip, decoded; an absent key (empty hash) becomes null. */
export async function loadHashes<T>(redis: Redis, keys: string[], decode: (h: Hash) => T): Promise<(T | null)[]> {
  if (keys.length === 0) return [];
  const multi = redis.multi();
  for (const key of keys) multi.hGetAll(key);
  const replies = (await multi.exec()) as unknown as Hash[];
  return replies.map((h) => (Object.keys(h).length === 0 ? null : decode({ ...h })));
}

/** A Lua script's HGETALL reply (a flat field, value, … array) as a Hash. */
export function hashFromReply(reply: unknown): Hash {
  const flat = reply as string[];
  const hash: Hash = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
  return hash;
}

export function text(h: Hash, name: string): string {
  return h[name] ?? '';
}

export function textOrNull(h: Hash, name: string): string | null {
  return h[name] ?? null;
}

export function int(h: Hash, name: string): number {
  return Number(h[name] ?? 0);
}

export function numberOrNull(h: Hash, name: string): number | null {
  const v = h[name];
  return v === undefined ? null : Number(v);
}

export function jsonField<T>(h: Hash, name: string, fallback: T): T {
  const v = h[name];
  return v === undefined ? fallback : (JSON.parse(v) as T);
}
