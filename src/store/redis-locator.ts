import { createClient } from 'redis';
import type { Logger } from 'pino';
import type { RedisNodeAddress } from '../config/redis-address.js';
import { keySlot } from './cluster-slot.js';

/** Finds the one Redis server Parley's keys live on now (a Sentinel's master, a cluster slot's master). */
export interface RedisLocator {
  /** What is located, for log lines (`sentinel master mymaster`, `cluster slot 1234`). */
  readonly what: string;
  /** The node's address; throws when no seed (Sentinel, cluster node) answers. */
  locate(): Promise<RedisNodeAddress>;
  close(): void;
}

interface SeedAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * One connection per seed (Sentinel or cluster node), opened on first use and kept: failing fast
 * while its seed is down, reconnecting forever, asked in order until one answers.
 */
class Seeds {
  private readonly clients = new Map<
    string,
    { client: ReturnType<typeof createClient>; connected: Promise<unknown> }
  >();
  private closed = false;

  constructor(
    private readonly seeds: RedisNodeAddress[],
    private readonly auth: SeedAuth,
    private readonly timeoutMs: number,
    private readonly logger: Logger | undefined,
  ) {}

  /** Asks each seed in turn; returns the first answer `read` accepts (not undefined) and the seed that gave it. */
  async ask<T>(
    command: string[],
    read: (reply: unknown, seed: RedisNodeAddress) => T | undefined,
  ): Promise<{ answer: T; seed: RedisNodeAddress }> {
    const problems: string[] = [];
    for (const seed of this.seeds) {
      try {
        const client = await this.client(seed);
        const answer = read(await client.sendCommand(command), seed);
        if (answer !== undefined) return { answer, seed };
        problems.push(`${seed.host}:${seed.port}: no answer to ${command.join(' ')}`);
      } catch (err) {
        problems.push(`${seed.host}:${seed.port}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    throw new Error(`no Redis seed answered (${problems.join('; ')})`);
  }

  close(): void {
    this.closed = true;
    for (const { client } of this.clients.values()) if (client.isOpen) client.destroy();
    this.clients.clear();
  }

  /** The seed's client, once ready; throws when it is not ready within timeoutMs (it keeps trying in the background). */
  private async client(seed: RedisNodeAddress): Promise<ReturnType<typeof createClient>> {
    if (this.closed) throw new Error('closed');
    const entry = this.entry(seed);
    if (entry.client.isReady) return entry.client;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)));
    await Promise.race([entry.connected, expired]).finally(() => clearTimeout(timer));
    if (!entry.client.isReady) throw new Error('not reachable');
    return entry.client;
  }

  private entry(seed: RedisNodeAddress): { client: ReturnType<typeof createClient>; connected: Promise<unknown> } {
    const name = `${seed.host}:${seed.port}`;
    const known = this.clients.get(name);
    if (known !== undefined) return known;
    const socket = {
      host: seed.host,
      port: seed.port,
      connectTimeout: this.timeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000),
    };
    const client = createClient({
      username: this.auth.username,
      password: this.auth.password,
      socket: this.auth.tls ? { ...socket, tls: true } : socket,
      disableOfflineQueue: true,
    });
    // A seed that is down is skipped (ask() tries the next); one log line per outage is enough.
    let down = false;
    client.on('error', (err: Error) => {
      if (!down) this.logger?.debug({ err: err.message, seed: name }, 'redis seed unreachable');
      down = true;
    });
    client.on('ready', () => (down = false));
    // A seed down at first keeps being retried by the client's reconnect strategy.
    const connected = client
      .connect()
      .catch((err: unknown) => this.logger?.debug({ err, seed: name }, 'redis seed connect failed'));
    const entry = { client, connected };
    this.clients.set(name, entry);
    return entry;
  }
}

/** The master a set of Sentinels monitors under `masterName` (SENTINEL GET-MASTER-ADDR-BY-NAME). */
export function sentinelLocator(o: {
  sentinels: RedisNodeAddress[];
  masterName: string;
  sentinelPassword?: string;
  tls: boolean;
  timeoutMs: number;
  logger?: Logger;
}): RedisLocator {
  const seeds = new Seeds(o.sentinels, { password: o.sentinelPassword, tls: o.tls }, o.timeoutMs, o.logger);
  return {
    what: `sentinel master ${o.masterName}`,
    async locate() {
      const { answer } = await seeds.ask(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', o.masterName], (reply) =>
        Array.isArray(reply) && reply.length === 2 ? { host: String(reply[0]), port: Number(reply[1]) } : undefined,
      );
      return answer;
    },
    close: () => seeds.close(),
  };
}

/** The master of the slot of `hashTag` in a Redis Cluster (CLUSTER SLOTS, asked of the seed nodes). */
export function clusterSlotLocator(o: {
  nodes: RedisNodeAddress[];
  hashTag: string;
  username?: string;
  password?: string;
  tls: boolean;
  timeoutMs: number;
  logger?: Logger;
}): RedisLocator {
  const slot = keySlot(`{${o.hashTag}}`);
  const seeds = new Seeds(o.nodes, o, o.timeoutMs, o.logger);
  return {
    what: `cluster slot ${slot} ({${o.hashTag}})`,
    async locate() {
      const { answer } = await seeds.ask(['CLUSTER', 'SLOTS'], (reply, seed) => slotMaster(reply, slot, seed));
      return answer;
    },
    close: () => seeds.close(),
  };
}

/** The master serving `slot` in a CLUSTER SLOTS reply: `[[start, end, [ip, port, id, …], …replicas], …]`. */
function slotMaster(reply: unknown, slot: number, seed: RedisNodeAddress): RedisNodeAddress | undefined {
  if (!Array.isArray(reply)) return undefined;
  for (const range of reply as unknown[][]) {
    const [start, end, master] = range;
    if (Number(start) <= slot && slot <= Number(end) && Array.isArray(master)) {
      // An empty ip means "the node you asked" (a node that does not know its own address).
      const host = String(master[0]);
      return { host: host === '' ? seed.host : host, port: Number(master[1]) };
    }
  }
  return undefined;
}
