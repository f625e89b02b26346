import { ClientOfflineError, createClient } from 'redis';
import type { Logger } from 'pino';
import { markStoreUnavailable } from './unavailable.js';
import { RedisWatchdog } from './redis-watchdog.js';

export type Redis = ReturnType<typeof createClient>;

export interface RedisOptions {
  url: string;
  logger?: Logger;
  /**
   * How long Redis may take to answer before it counts as down: the TCP connect timeout and the
   * watchdog's deadline for a PING (see RedisWatchdog), which bounds every command's wait.
   */
  timeoutMs?: number;
}

/** Commands waiting to be written or answered at once; past it a command fails (503) instead of queueing. */
const maxPendingCommands = 10_000;

const watchdogs = new WeakMap<Redis, RedisWatchdog>();

/**
 * Connects a client that fails fast while Redis cannot answer, so a request that needs Redis gets
 * 503 `store_unavailable` within about 1.5 × `timeoutMs` instead of hanging:
 * - refused or reset: commands issued while disconnected fail at once (no offline queue), and the
 *   commands in flight fail with the socket's error (marked as a store error for the HTTP layer);
 * - frozen (SIGSTOP, a dead peer behind a live TCP path): the watchdog drops the connection when a
 *   PING goes unanswered for `timeoutMs`, failing every command waiting on it;
 * - it reconnects forever with capped backoff, so readiness returns on its own when Redis does.
 */
export async function connectRedis({ url, logger, timeoutMs = 1_000 }: RedisOptions): Promise<Redis> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: maxPendingCommands,
    // No per-command timeout: node-redis arms an AbortSignal.timeout (a timer that lives its whole
    // span) for every command, a few percent of the event loop under voice load; the watchdog
    // already fails every waiting command within about 1.5 × timeoutMs of Redis going quiet.
    socket: {
      connectTimeout: timeoutMs,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000),
    },
  });
  let down = false;
  client.on('error', (err: Error) => {
    // The same object rejects the commands in flight (ECONNRESET, ECONNREFUSED, …).
    markStoreUnavailable(err);
    if (!down) logger?.warn({ err: err.message }, 'redis connection error');
    down = true;
  });
  client.on('ready', () => {
    if (down) logger?.info('redis connection restored');
    down = false;
  });
  failFastMulti(client);
  await client.connect();
  const watchdog = new RedisWatchdog(client, { timeoutMs, logger });
  watchdogs.set(client, watchdog);
  client.on('end', () => watchdog.onEnd());
  return client;
}

/** Stops the client's watchdog and drops the connection; the way to close a client from connectRedis. */
export function closeRedis(client: Redis): void {
  watchdogs.get(client)?.stop();
  if (client.isOpen) client.destroy();
}

/**
 * node-redis 5 queues a MULTI issued while disconnected even with `disableOfflineQueue` (its check
 * is "open", not "ready"), so a transaction would wait for the next reconnect attempt. This makes
 * `exec` fail at once like single commands do.
 */
function failFastMulti(client: Redis): void {
  const open = client.MULTI.bind(client);
  const guarded: typeof client.MULTI = () => {
    const multi = open();
    const exec = multi.exec.bind(multi);
    const execAsPipeline = multi.execAsPipeline.bind(multi);
    multi.exec = ((...args: Parameters<typeof exec>) =>
      client.isReady ? exec(...args) : Promise.reject(new ClientOfflineError())) as typeof exec;
    multi.EXEC = multi.exec;
    multi.execAsPipeline = (() =>
      client.isReady ? execAsPipeline() : Promise.reject(new ClientOfflineError())) as typeof execAsPipeline;
    return multi;
  };
  client.MULTI = guarded;
  client.multi = guarded;
}
