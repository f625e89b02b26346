import type { Keys } from '../keys.js';
import type { Redis } from '../redis.js';

/** What a running LiveKit job writes of its room: the session and job it serves (all strings, as Redis holds them). */
export interface RoomLink {
  session_id: string;
  agent_id: string;
  job_id: string;
  /** The id LiveKit gave the worker; empty when it had none yet. */
  worker_id: string;
  instance_id: string;
  /** The user's participant identity; empty when unknown. */
  participant: string;
  started_ms: string;
}

/**
 * What LiveKit's side of Parley shares between instances, in Redis:
 *
 * - heartbeats: each instance's status (JSON, as the caller serialised it) under its own key with
 *   an expiry, indexed by the time of its last beat (zset, ms), so any instance can list them;
 * - room links: the session and job a LiveKit room serves, while its job runs (hash, expiring).
 */
export class LivekitRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Writes one instance's heartbeat, expiring after `ttlMs`, and indexes it at `nowMs`. */
  async beat(instanceId: string, status: string, nowMs: number, ttlMs: number): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.livekitInstance(instanceId), status, { PX: ttlMs })
      .zAdd(this.keys.livekitInstances(), { score: nowMs, value: instanceId })
      .exec();
  }

  /** Removes a stopping instance's heartbeat and its index entry. */
  async removeInstance(instanceId: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.livekitInstance(instanceId))
      .zRem(this.keys.livekitInstances(), instanceId)
      .exec();
  }

  /**
   * The heartbeats (as written) of every instance that beat at or after `freshSinceMs`, oldest
   * first; index entries older than that are pruned, and expired heartbeats left out.
   */
  async heartbeats(freshSinceMs: number): Promise<string[]> {
    const index = this.keys.livekitInstances();
    await this.redis.zRemRangeByScore(index, '-inf', `(${freshSinceMs}`);
    const ids = await this.redis.zRange(index, 0, -1);
    if (ids.length === 0) return [];
    const values = await this.redis.mGet(ids.map((id) => this.keys.livekitInstance(id)));
    return values.filter((value): value is string => value !== null);
  }

  /** Links `room` to the job serving it, for `ttlMs` (a crashed instance never unlinks). */
  async linkRoom(room: string, link: RoomLink, ttlMs: number): Promise<void> {
    const key = this.keys.livekitRoom(room);
    await this.redis
      .multi()
      .hSet(key, { ...link })
      .pExpire(key, ttlMs)
      .exec();
  }

  async unlinkRoom(room: string): Promise<void> {
    await this.redis.del(this.keys.livekitRoom(room));
  }

  /** The links of `rooms`, in order; a room no job linked has an empty one. */
  async roomLinks(rooms: readonly string[]): Promise<Partial<RoomLink>[]> {
    return Promise.all(rooms.map(async (room) => ({ ...(await this.redis.hGetAll(this.keys.livekitRoom(room))) })));
  }
}
