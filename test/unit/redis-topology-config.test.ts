import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { parseRedisAddress } from '../../src/config/redis-address.js';

/** REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES: one Redis each, at most one of them. */
describe('Redis topology configuration', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('Sentinels: the address carries the master name, both passwords, TLS and one replica to wait for', () => {
    const config = loadConfig({
      REDIS_SENTINELS: 'a.example:26379, b.example:26380,[::1]:26381',
      REDIS_SENTINEL_PASSWORD: 's3cret&x=1',
      REDIS_PASSWORD: 'data pass',
      REDIS_TLS: 'true',
    });
    expect(config.redisPrefix).toBe('parley');
    expect(parseRedisAddress(config.redisUrl!)).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'a.example', port: 26379 },
        { host: 'b.example', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      masterName: 'mymaster',
      sentinelPassword: 's3cret&x=1',
      username: undefined,
      password: 'data pass',
      tls: true,
      waitReplicas: 1,
    });
  });

  it('cluster: every key under one hash tag, no replica wait unless asked', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000', PARLEY_REDIS_PREFIX: 'acme' });
    expect(config.redisPrefix).toBe('{acme}');
    expect(parseRedisAddress(config.redisUrl!)).toMatchObject({ kind: 'cluster', hashTag: 'acme', waitReplicas: 0 });
    const waiting = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_WAIT_REPLICAS: '1' });
    expect(parseRedisAddress(waiting.redisUrl!)).toMatchObject({ waitReplicas: 1 });
  });

  it('one server keeps its URL and its key names', () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.redisPrefix).toBe('parley');
    expect(loadConfig({}).redisUrl).toBeUndefined(); // the embedded redis-server
  });

  it('rejects two topologies at once, options without their topology, and bad node lists', () => {
    expect(problems({ REDIS_URL: 'redis://x:1', REDIS_SENTINELS: 'a:1' })).toEqual([
      'REDIS_URL, REDIS_SENTINELS: set only one (one Redis server, its Sentinels, or a cluster)',
    ]);
    expect(problems({ REDIS_SENTINELS: 'a:1', REDIS_CLUSTER_NODES: 'b:2' })[0]).toMatch(/set only one/);
    expect(problems({ REDIS_URL: 'redis://x:1', REDIS_PASSWORD: 'p' })[0]).toMatch(
      /^REDIS_PASSWORD: only with REDIS_SENTINELS or REDIS_CLUSTER_NODES/,
    );
    expect(problems({ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINEL_PASSWORD: 'p' })).toEqual([
      'REDIS_SENTINEL_PASSWORD: only with REDIS_SENTINELS',
    ]);
    expect(problems({ REDIS_SENTINELS: 'a' })[0]).toMatch(/^REDIS_SENTINELS: must be a comma list of host:port/);
    expect(problems({ REDIS_CLUSTER_NODES: 'a:99999' })[0]).toMatch(/^REDIS_CLUSTER_NODES: must be a comma list/);
    // a password in a bad value is not echoed
    expect(problems({ REDIS_SENTINELS: 'a:1', REDIS_WAIT_REPLICAS: 'x', REDIS_PASSWORD: 'p' }).join()).not.toMatch(
      /"p"/,
    );
  });
});
