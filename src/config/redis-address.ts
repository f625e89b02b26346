/**
 * Where Parley's Redis is: one server (a `redis://` or `rediss://` URL, REDIS_URL), a master found
 * through Sentinels (REDIS_SENTINELS), or a Redis Cluster (REDIS_CLUSTER_NODES).
 *
 * The configuration carries it as one string (`Config.redisUrl`) so that it travels unchanged to
 * every place that connects (the store, each BullMQ queue, the worker processes over IPC): a plain
 * URL for one server, and for the other two a URL of this module's own scheme,
 * `redis-sentinel://sentinels?…` or `redis-cluster://nodes?…`, built and read only here.
 */

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** Credentials, TLS and write acknowledgement of the data nodes (REDIS_USERNAME, REDIS_PASSWORD, REDIS_TLS, REDIS_WAIT_REPLICAS). */
export interface RedisDataAuth {
  username?: string;
  password?: string;
  tls: boolean;
  /** Replicas that must hold each record write before Parley counts it done (`WAIT`); 0: no wait. */
  waitReplicas: number;
}

export type RedisAddress =
  | { kind: 'standalone'; url: string }
  | ({
      kind: 'sentinel';
      sentinels: RedisNodeAddress[];
      /** The name the Sentinels monitor the master under (REDIS_SENTINEL_MASTER). */
      masterName: string;
      /** The Sentinels' own password (REDIS_SENTINEL_PASSWORD), if they require one. */
      sentinelPassword?: string;
    } & RedisDataAuth)
  | ({
      kind: 'cluster';
      nodes: RedisNodeAddress[];
      /** The hash tag every Parley key carries on a cluster (PARLEY_REDIS_PREFIX): its slot's master holds them all. */
      hashTag: string;
    } & RedisDataAuth);

/** Parses a comma list of `host:port` (REDIS_SENTINELS, REDIS_CLUSTER_NODES); throws on a bad entry. */
export function parseNodeList(list: string): RedisNodeAddress[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (match === null || port < 1 || port > 65_535) throw new Error(`"${entry}" is not host:port`);
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
    });
}

/** The one-string form of an address (see the top of this file). */
export function formatRedisAddress(address: RedisAddress): string {
  if (address.kind === 'standalone') return address.url;
  const params = new URLSearchParams();
  const nodes = address.kind === 'sentinel' ? address.sentinels : address.nodes;
  params.set('nodes', nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(','));
  if (address.kind === 'sentinel') {
    params.set('master', address.masterName);
    if (address.sentinelPassword !== undefined) params.set('sentinel_password', address.sentinelPassword);
  }
  if (address.kind === 'cluster') params.set('hash_tag', address.hashTag);
  if (address.username !== undefined) params.set('username', address.username);
  if (address.password !== undefined) params.set('password', address.password);
  if (address.tls) params.set('tls', 'true');
  params.set('wait_replicas', String(address.waitReplicas));
  return `redis-${address.kind}://${address.kind === 'sentinel' ? 'sentinels' : 'nodes'}?${params.toString()}`;
}

/** Reads what formatRedisAddress wrote, or a plain redis:// / rediss:// URL. */
export function parseRedisAddress(value: string): RedisAddress {
  const url = new URL(value);
  if (url.protocol === 'redis:' || url.protocol === 'rediss:') return { kind: 'standalone', url: value };
  const p = url.searchParams;
  const auth: RedisDataAuth = {
    username: p.get('username') ?? undefined,
    password: p.get('password') ?? undefined,
    tls: p.get('tls') === 'true',
    waitReplicas: Number(p.get('wait_replicas') ?? 0),
  };
  const nodes = parseNodeList(p.get('nodes') ?? '');
  if (url.protocol === 'redis-cluster:')
    return { kind: 'cluster', nodes, hashTag: p.get('hash_tag') ?? 'parley', ...auth };
  if (url.protocol === 'redis-sentinel:') {
    return {
      kind: 'sentinel',
      sentinels: nodes,
      masterName: p.get('master') ?? defaultSentinelMaster,
      sentinelPassword: p.get('sentinel_password') ?? undefined,
      ...auth,
    };
  }
  throw new Error(`unknown Redis address scheme ${url.protocol}`);
}

/** The master name when REDIS_SENTINEL_MASTER is unset: the one Redis's own sentinel.conf example uses. */
export const defaultSentinelMaster = 'mymaster';

/** The Redis variables as env-schema.ts parsed them (a structural type: the schema imports this module). */
export interface RedisEnv {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS?: string | undefined;
  REDIS_SENTINEL_MASTER: string;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES?: string | undefined;
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
  REDIS_TLS?: boolean | undefined;
  REDIS_WAIT_REPLICAS?: number | undefined;
  PARLEY_REDIS_PREFIX: string;
}

/** REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES name one Redis each: at most one may be set. */
export function redisTopologyProblems(e: RedisEnv): string[] {
  const set = (['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const).filter(
    (name) => e[name] !== undefined,
  );
  const problems: string[] = [];
  if (set.length > 1) problems.push(`${set.join(', ')}: set only one (one Redis server, its Sentinels, or a cluster)`);
  const dataOptions = (['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS', 'REDIS_WAIT_REPLICAS'] as const).filter(
    (name) => e[name] !== undefined,
  );
  if (dataOptions.length > 0 && e.REDIS_SENTINELS === undefined && e.REDIS_CLUSTER_NODES === undefined) {
    problems.push(
      `${dataOptions.join(', ')}: only with REDIS_SENTINELS or REDIS_CLUSTER_NODES (REDIS_URL carries its own user, password and rediss://)`,
    );
  }
  if (e.REDIS_SENTINEL_PASSWORD !== undefined && e.REDIS_SENTINELS === undefined) {
    problems.push('REDIS_SENTINEL_PASSWORD: only with REDIS_SENTINELS');
  }
  return problems;
}

/** Config.redisUrl: REDIS_URL, or the one-string form of the Sentinels or cluster. */
export function redisAddressOf(e: RedisEnv): string | undefined {
  const data = {
    username: e.REDIS_USERNAME,
    password: e.REDIS_PASSWORD,
    tls: e.REDIS_TLS ?? false,
  };
  if (e.REDIS_SENTINELS !== undefined) {
    return formatRedisAddress({
      kind: 'sentinel',
      sentinels: parseNodeList(e.REDIS_SENTINELS),
      masterName: e.REDIS_SENTINEL_MASTER,
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
      ...data,
      // A failover promotes a replica; a write no replica holds yet would be lost with the old master.
      waitReplicas: e.REDIS_WAIT_REPLICAS ?? 1,
    });
  }
  if (e.REDIS_CLUSTER_NODES !== undefined) {
    const nodes = parseNodeList(e.REDIS_CLUSTER_NODES);
    const hashTag = e.PARLEY_REDIS_PREFIX;
    return formatRedisAddress({ kind: 'cluster', nodes, hashTag, ...data, waitReplicas: e.REDIS_WAIT_REPLICAS ?? 0 });
  }
  return e.REDIS_URL;
}
