import { ClientOfflineError, createClient, type RedisClientOptions } from 'redis';
import type { Logger } from 'pino';
import { markStoreUnavailable } from './unavailable.js';
import { RedisWatchdog } from './redis-watchdog.js';

export type Redis = ReturnType<typeof createClient>;

/** Where one Redis server is and how to log in: a URL, or the socket and credentials. */
export type RedisNodeTarget =
  { url: string } | { host: string; port: number; username?: string; password?: string; tls: boolean };

export interface RedisNodeOptions {
  logger?: Logger;
  /**
   * How long Redis may take to answer before it counts as down: the TCP connect timeout and the
   * watchdog's deadline for a PING (see RedisWatchdog), which bounds every command's wait.
   */
  timeoutMs: number;
  /** Replicas that must acknowledge a transaction (WAIT) before its `exec` resolves; 0: no wait. */
  waitReplicas: number;
}

/** Commands waiting to be written or answered at once; past it a command fails (503) instead of queueing. */
const maxPendingCommands = 10_000;

const watchdogs = new WeakMap<Redis, RedisWatchdog>();

/**
 * Connects a client to one Redis server that fails fast while it cannot answer, so a request that
 * needs Redis gets 503 `store_unavailable` within about 1.5 × `timeoutMs` instead of hanging:
 * - refused or reset: commands issued while disconnected fail at once (no offline queue), and the
 *   commands in flight fail with the socket's error (marked as a store error for the HTTP layer);
 * - frozen (SIGSTOP, a dead peer behind a live TCP path): the watchdog drops the connection when a
 *   PING goes unanswered for `timeoutMs`, failing every command waiting on it;
 * - it reconnects forever with capped backoff, so readiness returns on its own when Redis does.
 */
export async function connectRedisNode(target: RedisNodeTarget, options: RedisNodeOptions): Promise<Redis> {
  const { logger, timeoutMs } = options;
  const socket = {
    connectTimeout: timeoutMs,
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000),
  };
  const where: RedisClientOptions =
    'url' in target
      ? { url: target.url, socket }
      : {
          username: target.username,
          password: target.password,
          socket: target.tls
            ? { ...socket, host: target.host, port: target.port, tls: true }
            : { ...socket, host: target.host, port: target.port },
        };
  const client = createClient({
    ...where,
    disableOfflineQueue: true,
    commandsQueueMaxLength: maxPendingCommands,
    // No per-command timeout: node-redis arms an AbortSignal.timeout (a timer that lives its whole
    // span) for every command, a few percent of the event loop under voice load; the watchdog
    // already fails every waiting command within about 1.5 × timeoutMs of Redis going quiet.
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
  failFastMulti(client, options);
  await client.connect();
  const watchdog = new RedisWatchdog(client, { timeoutMs, logger });
  watchdogs.set(client, watchdog);
  client.on('end', () => watchdog.onEnd());
  return client;
}

/** Stops the client's watchdog and drops the connection. */
export function closeRedisNode(client: Redis): void {
  watchdogs.get(client)?.stop();
  if (client.isOpen) client.destroy();
}

/** Per client: the WAIT queued behind the one in flight, shared by every write that asks meanwhile. */
const queuedWaits = new WeakMap<Redis, { queued: Promise<number> | undefined; last: Promise<unknown> }>();

/**
 * Waits until `replicas` replicas hold every write this connection made so far (WAIT), at most
 * half the store's timeout. Fewer acknowledgements fail the caller as a store error (503): the
 * write is on the master but could be lost if it failed over now, so it is not reported as done.
 *
 * WAIT blocks the connection it is sent on (and must go on the one that wrote), so the writes ask
 * together: at most one WAIT is in flight and one queued behind it, which covers every write
 * answered before it is sent (group commit). Commands behind it on the connection, the watchdog's
 * PING included, wait at most one WAIT (`timeoutMs / 2`) when no replica answers.
 */
export async function awaitReplicas(client: Redis, replicas: number, timeoutMs: number): Promise<void> {
  if (replicas <= 0) return;
  const waitMs = Math.max(1, Math.floor(timeoutMs / 2));
  let state = queuedWaits.get(client);
  if (state === undefined) queuedWaits.set(client, (state = { queued: undefined, last: Promise.resolve() }));
  const round = state;
  if (round.queued === undefined) {
    round.queued = round.last.then(async () => {
      round.queued = undefined; // writes answered from now on need the next WAIT
      return Number(await client.sendCommand(['WAIT', String(replicas), String(waitMs)]));
    });
    round.last = round.queued.catch(() => undefined); // its caller gets the error; the next round goes on
  }
  const acknowledged = await round.queued;
  if (acknowledged >= replicas) return;
  const err = new Error(
    `only ${acknowledged} of ${replicas} Redis replica(s) acknowledged a write within ${waitMs} ms`,
  );
  markStoreUnavailable(err);
  throw err;
}

/**
 * node-redis 5 queues a MULTI issued while disconnected even with `disableOfflineQueue` (its check
 * is "open", not "ready"), so a transaction would wait for the next reconnect attempt. This makes
 * `exec` fail at once like single commands do, and waits for the replicas after it (awaitReplicas).
 */
function failFastMulti(client: Redis, options: RedisNodeOptions): void {
  const open = client.MULTI.bind(client);
  const replicated = async <T>(reply: Promise<T>): Promise<T> => {
    const result = await reply;
    await awaitReplicas(client, options.waitReplicas, options.timeoutMs);
    return result;
  };
  const guarded: typeof client.MULTI = () => {
    const multi = open();
    const exec = multi.exec.bind(multi);
    const execAsPipeline = multi.execAsPipeline.bind(multi);
    multi.exec = ((...args: Parameters<typeof exec>) =>
      client.isReady ? replicated(exec(...args)) : Promise.reject(new ClientOfflineError())) as typeof exec;
    multi.EXEC = multi.exec;
    multi.execAsPipeline = (() =>
      client.isReady
        ? replicated(execAsPipeline())
        : Promise.reject(new ClientOfflineError())) as typeof execAsPipeline;
    return multi;
  };
  client.MULTI = guarded;
  client.multi = guarded;
}
