import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';

/**
 * Which errors mean "Redis cannot answer now" (refusing, frozen, reset, closing, loading) rather
 * than "this request is wrong" or "Parley has a bug". The HTTP layer answers them 503
 * `store_unavailable` with Retry-After; background work retries them.
 */

/** Socket errors (ECONNRESET, ECONNREFUSED, EPIPE, …) that a Redis connection reported. */
const fromRedisSocket = new WeakSet<object>();

/** Records that `err` came from a Redis connection (its socket's error rejects the commands in flight). */
export function markStoreUnavailable(err: unknown): void {
  if (typeof err === 'object' && err !== null) fromRedisSocket.add(err);
}

/** Redis replies that mean "not now" rather than "wrong": loading its data, failing over, busy. */
const transientReply = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|READONLY|MOVED|ASK|NOREPLICAS)\b/;

/**
 * What ioredis (BullMQ's client) rejects a command with when Redis is down and the connection
 * fails fast (see `bullConnection`): plain Errors, told apart by message only.
 */
const ioredisUnavailable = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Connection is closed.',
  'Command timed out',
  "Cluster isn't ready and enableOfflineQueue options is false",
]);

/** node-redis's rejection when `commandsQueueMaxLength` commands are already pending (a plain Error). */
const queueFull = 'The queue is full';

export function isStoreUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (fromRedisSocket.has(err)) return true;
  if (
    err instanceof ClientOfflineError ||
    err instanceof ClientClosedError ||
    err instanceof ConnectionTimeoutError ||
    err instanceof SocketClosedUnexpectedlyError ||
    err instanceof SocketTimeoutError ||
    err instanceof TimeoutError ||
    err instanceof ReconnectStrategyError ||
    err instanceof DisconnectsClientError
  ) {
    return true;
  }
  if (err instanceof ErrorReply) return transientReply.test(err.message);
  if (!(err instanceof Error)) return false;
  return err.message === queueFull || ioredisUnavailable.has(err.message) || err.name === 'MaxRetriesPerRequestError';
}
