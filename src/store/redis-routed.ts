import type { Logger } from 'pino';
import type { RedisNodeAddress } from '../config/redis-address.js';
import { closeRedisNode, connectRedisNode, type Redis, type RedisNodeOptions } from './redis-node.js';
import type { RedisLocator } from './redis-locator.js';

export interface RoutedRedisOptions extends RedisNodeOptions {
  username?: string;
  password?: string;
  tls: boolean;
  logger?: Logger;
}

/** How often the locator is asked while the node answers, and while it does not (a failover under way). */
export const routedPollMs = { healthy: 1_000, unavailable: 200 } as const;

/**
 * A Redis client that follows the node holding Parley's keys: the master a Sentinel names, or the
 * master of Parley's one cluster slot. It is a proxy over a plain fail-fast client of that node
 * (redis-node.ts), so the store uses it exactly as one server's client (the `Redis` type, scripts
 * by SHA, MULTI, the watchdog's PING on that very node): every Parley key sits on it.
 *
 * The locator is asked every `routedPollMs.healthy`, and every `routedPollMs.unavailable` while the
 * node cannot be reached; when it names another node, a client of that node replaces the old one
 * (closed; what was in flight on it fails as a store error, 503). Between the old node's loss and
 * the switch, commands fail at once (503 store_unavailable): the window is the Sentinels' (or the
 * cluster's) own failover time plus at most one poll and one connect.
 */
class RoutedRedis {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private lastCheck = 0;
  private closed = false;

  constructor(
    readonly locator: RedisLocator,
    public current: Redis,
    private at: RedisNodeAddress,
    private readonly options: RoutedRedisOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), routedPollMs.unavailable);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.locator.close();
    closeRedisNode(this.current);
  }

  private tick(): void {
    if (this.checking || this.closed) return;
    const due = this.current.isReady ? routedPollMs.healthy : routedPollMs.unavailable;
    if (performance.now() - this.lastCheck < due) return;
    this.checking = true;
    this.lastCheck = performance.now();
    this.check()
      .catch((err: unknown) => this.options.logger?.warn({ err }, `redis: cannot locate the ${this.locator.what}`))
      .finally(() => (this.checking = false));
  }

  private async check(): Promise<void> {
    const at = await this.locator.locate();
    if (at.host === this.at.host && at.port === this.at.port) return;
    const next = await connectWithin(at, this.options);
    if (this.closed) {
      closeRedisNode(next);
      return;
    }
    const old = this.current;
    this.options.logger?.warn(
      { from: `${this.at.host}:${this.at.port}`, to: `${at.host}:${at.port}` },
      `redis: the ${this.locator.what} moved; switching to it`,
    );
    this.current = next;
    this.at = at;
    closeRedisNode(old);
  }
}

/** Connects a node client, giving up (and closing it when it connects later) after 2 × timeoutMs. */
async function connectWithin(at: RedisNodeAddress, options: RoutedRedisOptions): Promise<Redis> {
  const connecting = connectRedisNode({ ...at, ...options }, options);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), options.timeoutMs * 2)),
  );
  const client = await Promise.race([connecting, expired]).finally(() => clearTimeout(timer));
  if (client !== undefined) return client;
  void connecting.then(closeRedisNode, () => undefined); // late: not wanted any more; a failure was already logged by the client
  throw new Error(`redis node ${at.host}:${at.port} did not connect within ${options.timeoutMs * 2} ms`);
}

const routed = new WeakMap<Redis, RoutedRedis>();

/** Connects to the node the locator names and follows it (see RoutedRedis); throws when it cannot be located. */
export async function connectRoutedRedis(locator: RedisLocator, options: RoutedRedisOptions): Promise<Redis> {
  let at: RedisNodeAddress;
  let first: Redis;
  try {
    at = await locator.locate();
    first = await connectWithin(at, options);
  } catch (err) {
    locator.close();
    throw err;
  }
  const state = new RoutedRedis(locator, first, at, options);
  const bound = new WeakMap<Redis, Map<PropertyKey, unknown>>();
  const proxy = new Proxy(first, {
    get(_target, prop) {
      const client = state.current;
      const value: unknown = Reflect.get(client, prop, client);
      if (typeof value !== 'function') return value;
      let methods = bound.get(client);
      if (methods === undefined) bound.set(client, (methods = new Map()));
      let method = methods.get(prop);
      if (method === undefined) methods.set(prop, (method = (value as (...a: unknown[]) => unknown).bind(client)));
      return method;
    },
  });
  routed.set(proxy, state);
  state.start();
  return proxy;
}

/** Closes a client from connectRoutedRedis; false when `client` is not one. */
export function closeRoutedRedis(client: Redis): boolean {
  const state = routed.get(client);
  if (state === undefined) return false;
  state.close();
  return true;
}
