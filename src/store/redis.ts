import type { Logger } from 'pino';
import { parseRedisAddress } from '../config/redis-address.js';
import { awaitReplicas, closeRedisNode, connectRedisNode, type Redis } from './redis-node.js';
import { clusterSlotLocator, sentinelLocator } from './redis-locator.js';
import { closeRoutedRedis, connectRoutedRedis } from './redis-routed.js';

export type { Redis } from './redis-node.js';

export interface RedisOptions {
  /** Config.redisUrl: a redis:// URL, or the Sentinels or cluster it names (src/config/redis-address.ts). */
  url: string;
  logger?: Logger;
  /**
   * How long Redis may take to answer before it counts as down: the TCP connect timeout and the
   * watchdog's deadline for a PING (see RedisWatchdog), which bounds every command's wait.
   */
  timeoutMs?: number;
}

/** How long a record write waits for the replicas (awaitReplicas), per client that asks for it. */
const replication = new WeakMap<Redis, { replicas: number; timeoutMs: number }>();

/**
 * Connects Parley's store client, failing fast while Redis cannot answer (503 `store_unavailable`
 * within about 1.5 × `timeoutMs`; see connectRedisNode):
 * - one server (REDIS_URL): a client of it;
 * - Sentinels: a client of the master they name, replaced by one of the new master after a failover;
 * - a cluster: a client of the master of Parley's one slot (every key carries the `{<prefix>}` hash
 *   tag), replaced when another node takes the slot over.
 * With Sentinels or a cluster, writes wait for REDIS_WAIT_REPLICAS replicas (Script.run, MULTI).
 */
export async function connectRedis({ url, logger, timeoutMs = 1_000 }: RedisOptions): Promise<Redis> {
  const address = parseRedisAddress(url);
  if (address.kind === 'standalone') return connectRedisNode({ url }, { logger, timeoutMs, waitReplicas: 0 });
  const options = { ...address, logger, timeoutMs };
  const locator =
    address.kind === 'sentinel'
      ? sentinelLocator({ ...address, logger, timeoutMs })
      : clusterSlotLocator({ ...address, logger, timeoutMs });
  const client = await connectRoutedRedis(locator, options);
  replication.set(client, { replicas: address.waitReplicas, timeoutMs });
  return client;
}

/** Stops the client's watchdog (and its locator) and drops the connection; the way to close a client from connectRedis. */
export function closeRedis(client: Redis): void {
  if (!closeRoutedRedis(client)) closeRedisNode(client);
}

/** After a write that must survive a failover: waits for the replicas the configuration asks for (none on one server). */
export async function awaitWriteReplicas(client: Redis): Promise<void> {
  const wanted = replication.get(client);
  if (wanted !== undefined) await awaitReplicas(client, wanted.replicas, wanted.timeoutMs);
}
