import type { ConnectionOptions, Queue, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { parseRedisAddress } from '../config/redis-address.js';

export interface BullConnectionOptions {
  /**
   * For a producer on a request path (a Queue whose `add` a request awaits): commands fail at once
   * while disconnected and after this long without an answer, so the request can answer 503
   * instead of hanging. Leave unset for workers and background producers: their commands wait for
   * Redis to come back (BullMQ requires that of workers' blocking connections).
   */
  failFastMs?: number;
}

/**
 * How Parley's BullMQ queues (event outbox, RAG ingestion) connect and shut down. BullMQ opens its
 * own ioredis connections to the same Redis as the store. They reconnect forever, every 100 ms to
 * 2 s (BullMQ's default backs off to 20 s, which would leave workers idle long after an outage),
 * and workers resume taking jobs on their own once Redis is back.
 *
 * `redisUrl` is Config.redisUrl (src/config/redis-address.ts): one server; Sentinels (ioredis asks them
 * for the master, and again after a failover: `failoverDetector` follows `+switch-master`); or a
 * cluster, as an ioredis Cluster instance (closed by closeQueue). On a cluster the queues' prefix
 * must carry a hash tag (BullMQ's scripts touch several keys of a queue): Parley's prefix is
 * `{parley}` there, so `{parley}:bull:<queue>:…` sits in the store's own slot.
 */
export function bullConnection(redisUrl: string, options: BullConnectionOptions = {}): ConnectionOptions {
  const failFast =
    options.failFastMs === undefined
      ? { maxRetriesPerRequest: null }
      : { enableOfflineQueue: false, commandTimeout: options.failFastMs, maxRetriesPerRequest: 1 };
  const retryStrategy = (times: number) => Math.min(100 * 2 ** times, 2_000);
  const address = parseRedisAddress(redisUrl);
  if (address.kind === 'cluster') {
    return new Cluster(address.nodes, {
      clusterRetryStrategy: retryStrategy,
      enableOfflineQueue: options.failFastMs === undefined,
      redisOptions: {
        username: address.username,
        password: address.password,
        tls: tlsOption(address.tls),
        ...failFast,
      },
    });
  }
  if (address.kind === 'sentinel') {
    return {
      sentinels: address.sentinels,
      name: address.masterName,
      sentinelPassword: address.sentinelPassword,
      username: address.username,
      password: address.password,
      tls: tlsOption(address.tls),
      enableTLSForSentinelMode: address.tls,
      failoverDetector: true,
      retryStrategy,
      sentinelRetryStrategy: retryStrategy,
      ...failFast,
    };
  }
  const u = new URL(address.url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username === '' ? undefined : decodeURIComponent(u.username),
    password: u.password === '' ? undefined : decodeURIComponent(u.password),
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: tlsOption(u.protocol === 'rediss:'),
    retryStrategy,
    ...failFast,
  };
}

function tlsOption(tls: boolean): { [name: string]: never } | undefined {
  return tls ? {} : undefined;
}

/** BullMQ leaves a connection instance it was given open (it may be shared): the cluster ones are Parley's own. */
async function closeOwnConnection(connection: ConnectionOptions | undefined): Promise<void> {
  if (!(connection instanceof Cluster)) return;
  if (!(await within(connection.quit(), bullCloseGraceMs))) connection.disconnect();
}

/** How long each step of a BullMQ shutdown may take before its connections are dropped. */
export const bullCloseGraceMs = 5_000;

/** True when `work` settles within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  // a close that failed is over too, which is all this asks; closeQueue goes on to the next step either way
  const settled = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes a worker, then its queue, never hanging:
 * - connections still opening (a SIGTERM right after boot) are let finish first, because closing
 *   them mid-handshake makes ioredis reject promises nobody awaits;
 * - BullMQ's graceful close waits on its connections, which right after a Redis outage may still be
 *   reconnecting; after the grace period they are dropped (an in-flight job is retried later).
 * `between` runs after the worker has stopped and before the queue closes.
 */
export async function closeQueue(
  queue: Queue,
  worker: Worker | undefined,
  options: { force?: boolean; between?: () => Promise<unknown> } = {},
): Promise<void> {
  await within(Promise.all([queue.waitUntilReady(), worker?.waitUntilReady()]), bullCloseGraceMs);
  if (worker !== undefined && !(await within(worker.close(options.force ?? false), bullCloseGraceMs))) {
    await worker.disconnect().catch(() => {}); // last resort after a close that timed out: nothing left to try
  }
  await options.between?.();
  // Last resort after a close that timed out: nothing left to try if disconnecting fails too.
  if (!(await within(queue.close(), bullCloseGraceMs))) await queue.disconnect().catch(() => {});
  await Promise.all([closeOwnConnection(worker?.opts.connection), closeOwnConnection(queue.opts.connection)]);
}
