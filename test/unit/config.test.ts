import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { envSchema } from '../../src/config/env-schema.js';

/** The problem lines of the ConfigError that loadConfig throws for `env`. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      port: 8080,
      host: '0.0.0.0',
      publicUrl: undefined,
      adminApiKey: undefined,
      dataDir: './data',
      redisUrl: undefined,
      redisPrefix: 'parley',
      logLevel: 'info',
      logFormat: 'auto',
      jsonLimitBytes: 1024 * 1024,
      trustProxy: false,
      shutdownTimeoutMs: 15_000,
      rateLimit: { rpm: 60, burst: 10 },
      espeakBin: 'espeak-ng',
      fliteBin: 'flite',
      modelsDir: './models',
      openai: { apiKey: undefined, baseUrl: undefined },
      livekit: { url: undefined, apiKey: undefined, apiSecret: undefined },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rateLimit)).toBe(true);
  });

  it('parses the values it is given', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '9000',
      PARLEY_ADMIN_API_KEY: 'a-key-of-sixteen-chars',
      REDIS_URL: 'rediss://user:pw@redis.example:6380/2',
      PARLEY_TRUST_PROXY: 'yes',
      PARLEY_RATE_LIMIT_RPM: '120',
      PARLEY_RATE_LIMIT_BURST: '5',
      PARLEY_PUBLIC_URL: 'https://voice.example.com',
    });
    expect(config).toMatchObject({
      env: 'production',
      port: 9000,
      adminApiKey: 'a-key-of-sixteen-chars',
      redisUrl: 'rediss://user:pw@redis.example:6380/2',
      trustProxy: true,
      rateLimit: { rpm: 120, burst: 5 },
      publicUrl: 'https://voice.example.com',
    });
  });

  it('treats an empty or blank variable as unset', () => {
    const config = loadConfig({ PORT: '', PARLEY_RATE_LIMIT_RPM: '  ', REDIS_URL: '', PARLEY_ADMIN_API_KEY: '' });
    expect(config.port).toBe(8080);
    expect(config.rateLimit.rpm).toBe(60);
    expect(config.redisUrl).toBeUndefined();
    expect(config.adminApiKey).toBeUndefined();
  });

  const badValues: [name: string, value: string][] = [
    ['NODE_ENV', 'prod'],
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '70000.5'],
    ['PARLEY_PUBLIC_URL', 'ftp://example.com'],
    ['PARLEY_PUBLIC_URL', 'example.com'],
    ['PARLEY_ADMIN_API_KEY', 'short'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['REDIS_URL', 'not a url'],
    ['PARLEY_REDIS_PREFIX', 'a b'],
    ['PARLEY_LOG_LEVEL', 'loud'],
    ['PARLEY_LOG_FORMAT', 'colour'],
    ['PARLEY_JSON_LIMIT_BYTES', '10'],
    ['PARLEY_TRUST_PROXY', 'maybe'],
    ['PARLEY_SHUTDOWN_TIMEOUT_MS', '-1'],
    ['PARLEY_SHUTDOWN_TIMEOUT_MS', 'soon'],
    ['PARLEY_RATE_LIMIT_RPM', '0'],
    ['PARLEY_RATE_LIMIT_BURST', 'ten'],
    ['OPENAI_BASE_URL', 'localhost:11434'],
    ['PARLEY_OPENAI_REALTIME_URL', 'https://api.openai.com/v1/realtime'],
    ['PARLEY_VAD_SILENCE_FLOOR_DBFS', '-200'],
    ['PARLEY_VAD_SILENCE_FLOOR_DBFS', 'abc'],
    ['PARLEY_VAD_SILENCE_FLOOR_DBFS', '6'],
  ];

  it.each(badValues)('rejects %s=%j with one line naming it', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: \\S`));
    expect(problems[0]).not.toContain('\n');
  });

  it('gives one line per bad variable for every variable of the schema', () => {
    const candidates = ['abc', '-1', '1.5', '99999999999', 'ftp://x y', 'http://example.com'];
    for (const name of Object.keys(envSchema.shape)) {
      if (name.startsWith('LIVEKIT_')) continue; // all-or-none, below
      for (const value of candidates) {
        let problems: string[] = [];
        try {
          loadConfig({ [name]: value });
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          problems = err.problems;
        }
        if (problems.length === 0) continue;
        expect(problems, `${name}=${value}`).toHaveLength(1);
        expect(problems[0], `${name}=${value}`).toMatch(new RegExp(`^${name}: `));
      }
    }
  });

  it('runs one worker process per core unless PARLEY_WORKERS says otherwise (1 to 256)', () => {
    expect(loadConfig({}).workers).toBe(availableParallelism());
    expect(loadConfig({ PARLEY_WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ PARLEY_WORKERS: '8' }).workers).toBe(8);
    for (const bad of ['0', '257', 'many']) expect(problemsOf({ PARLEY_WORKERS: bad })[0]).toMatch(/^PARLEY_WORKERS: /);
  });

  it('takes the VAD silence floor in dBFS from -120 to 0, or off (default -60)', () => {
    expect(loadConfig({}).vadSilenceFloorDbfs).toBe(-60);
    expect(loadConfig({ PARLEY_VAD_SILENCE_FLOOR_DBFS: 'off' }).vadSilenceFloorDbfs).toBe('off');
    expect(loadConfig({ PARLEY_VAD_SILENCE_FLOOR_DBFS: '-60' }).vadSilenceFloorDbfs).toBe(-60);
    expect(loadConfig({ PARLEY_VAD_SILENCE_FLOOR_DBFS: '-72.5' }).vadSilenceFloorDbfs).toBe(-72.5);
    for (const bad of ['-200', 'abc']) {
      expect(problemsOf({ PARLEY_VAD_SILENCE_FLOOR_DBFS: bad })).toEqual([
        `PARLEY_VAD_SILENCE_FLOOR_DBFS: must be a level in dBFS from -120 to 0, or off (got "${bad}")`,
      ]);
    }
  });

  it('caps the voice connect window at the connection token lifetime', () => {
    expect(loadConfig({})).toMatchObject({ voiceConnectWindowMs: 60_000, sessionLeaseTtlMs: 30_000 });
    expect(loadConfig({ PARLEY_VOICE_CONNECT_WINDOW_MS: '900000' }).voiceConnectWindowMs).toBe(600_000);
    expect(
      loadConfig({ PARLEY_VOICE_CONNECT_WINDOW_MS: '900000', PARLEY_LIVEKIT_TOKEN_TTL_S: '3600' }).voiceConnectWindowMs,
    ).toBe(900_000);
    expect(problemsOf({ PARLEY_SESSION_LEASE_TTL_MS: '10' })[0]).toMatch(/^PARLEY_SESSION_LEASE_TTL_MS: /);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'abc', NODE_ENV: 'prod', PARLEY_LOG_LEVEL: 'loud', PARLEY_DATA_DIR: '/ok' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['NODE_ENV', 'PARLEY_LOG_LEVEL', 'PORT']);
  });

  it('shows a bad value but never a secret', () => {
    expect(problemsOf({ PORT: 'abc' })[0]).toContain('"abc"');
    const [line] = problemsOf({ PARLEY_ADMIN_API_KEY: 'hunter2' });
    expect(line).toMatch(/^PARLEY_ADMIN_API_KEY: /);
    expect(line).not.toContain('hunter2');
    for (const [name, url] of [
      ['REDIS_URL', 'http://user:hunter2@redis.example.com:6379'],
      ['REDIS_URL', 'redis://:hunter2@redis.example.com:port'],
      ['OPENAI_BASE_URL', 'ftp://user:hunter2@example.com/v1'],
    ] as const) {
      const [bad] = problemsOf({ [name]: url });
      expect(bad).toMatch(new RegExp(`^${name}: .*@`));
      expect(bad).toContain(':***@');
      expect(bad).not.toContain('hunter2');
    }
  });

  describe('LiveKit settings, all or none', () => {
    const all = { LIVEKIT_URL: 'wss://lk.example.com', LIVEKIT_API_KEY: 'APIkey', LIVEKIT_API_SECRET: 'secret' };

    it('accepts none and all three', () => {
      expect(loadConfig({}).livekit).toEqual({
        url: undefined,
        apiKey: undefined,
        apiSecret: undefined,
        agentName: 'parley',
      });
      expect(loadConfig(all).livekit).toEqual({
        url: all.LIVEKIT_URL,
        apiKey: 'APIkey',
        apiSecret: 'secret',
        agentName: 'parley',
      });
    });

    it.each(Object.keys(all))('rejects a partial set without %s', (missing) => {
      const partial = Object.fromEntries(Object.entries(all).filter(([name]) => name !== missing));
      const problems = problemsOf(partial);
      expect(problems).toHaveLength(1);
      for (const name of Object.keys(all)) expect(problems[0]).toContain(name);
    });

    it.each(Object.keys(all))('rejects %s alone', (only) => {
      const problems = problemsOf({ [only]: all[only as keyof typeof all] });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/set all three or none/);
    });

    it('rejects a LIVEKIT_URL that is not a ws/http URL', () => {
      const problems = problemsOf({ ...all, LIVEKIT_URL: 'ftp://lk.example.com' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^LIVEKIT_URL: /);
    });
  });
});

describe('the README configuration table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const source = ['config.ts', 'env-schema.ts']
    .map((file) => readFileSync(new URL(`../../src/config/${file}`, import.meta.url), 'utf8'))
    .join('\n');
  /** The variable of each row of the table under "## Configuration". */
  const rows = () => {
    const section = readme.split(/^## /m).find((s) => s.startsWith('Configuration\n')) ?? '';
    return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]!);
  };
  /** Every variable Parley's configuration reads: the schema's keys, and any PARLEY_* name its code uses. */
  const read = () => new Set([...Object.keys(envSchema.shape), ...(source.match(/\bPARLEY_[A-Z0-9_]+\b/g) ?? [])]);

  it('lists every variable the configuration reads', () => {
    expect(rows().length).toBeGreaterThan(10);
    expect([...read()].filter((name) => !rows().includes(name))).toEqual([]);
  });

  it('lists nothing the configuration does not read, and each variable once', () => {
    expect(rows().filter((name) => !read().has(name))).toEqual([]);
    expect(rows().filter((name, i) => rows().indexOf(name) !== i)).toEqual([]);
  });
});
