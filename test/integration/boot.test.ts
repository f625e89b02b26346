import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import {
  isAlive,
  startMain as startMainProcess,
  stopMain,
  waitForExit,
  waitForLog,
  waitGone,
  type MainProcess,
} from '../support/main-process.js';
import { freePort, TestRedis } from '../support/redis-server.js';

/**
 * The real entry point (src/main.ts through tsx) in child processes: what `npm start` runs, with
 * a temp PARLEY_DATA_DIR and no REDIS_URL unless a test sets one. One process (PARLEY_WORKERS=1):
 * test/integration/cluster.test.ts covers the primary and its workers.
 */

const keyPattern = /padm_[A-Za-z0-9_-]{43}/g;

type Started = MainProcess;

const children: ChildProcess[] = [];
const strayPids: number[] = [];
const tempDirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

function startMain(env: Record<string, string>): Started {
  const p = startMainProcess({ PARLEY_WORKERS: '1', ...env });
  children.push(p.child);
  return p;
}

/** Starts main and waits until it listens; returns its URL and the embedded redis-server's pid. */
async function boot(env: Record<string, string>) {
  const port = await freePort();
  const p = startMain({ PORT: String(port), ...env });
  const listening = await waitForLog(p, /^Parley listening on /);
  const redisLine = p.logs().find((l) => l['msg'] === 'embedded redis-server started');
  const redisPid = typeof redisLine?.['pid'] === 'number' ? redisLine['pid'] : undefined;
  if (redisPid !== undefined) strayPids.push(redisPid);
  return { p, url: `http://127.0.0.1:${port}`, listening, redisPid };
}

const stop = (p: Started) => stopMain(p);

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('close', r));
    }
  }
  for (const pid of strayPids.splice(0)) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
});

afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// each test boots the built server once or twice (an embedded redis-server each): on a slow 2-core
// box under the whole suite's load a boot alone has taken ~25 s
describe('with no REDIS_URL', { timeout: 90_000 }, () => {
  const dataDir = tempDir('parley-boot-');
  let key = '';
  let agentId = '';

  it('starts its own redis-server, generates and prints an admin key, and stops cleanly on SIGTERM', async () => {
    const { p, url, listening, redisPid } = await boot({ PARLEY_DATA_DIR: dataDir });
    expect(listening['url']).toBe(`http://127.0.0.1:${new URL(url).port}`);

    // The key: printed exactly once, kept in the data folder with mode 0600, never in a log line.
    const printed = p.stdout().match(keyPattern) ?? [];
    expect(printed).toHaveLength(1);
    key = printed[0]!;
    const keyFile = join(dataDir, 'admin-api-key');
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(p.logs().some((l) => JSON.stringify(l).includes(key))).toBe(false);

    // The embedded redis-server: running, append-only files in <data>/redis.
    expect(redisPid).toBeDefined();
    expect(isAlive(redisPid!)).toBe(true);
    const redisFiles = readdirSync(join(dataDir, 'redis'));
    expect(redisFiles.some((f) => f === 'appendonlydir' || f === 'appendonly.aof')).toBe(true);

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${url}/admin/v1/agents`)).status).toBe(401);
    const list = await fetch(`${url}/admin/v1/agents`, { headers: { 'X-API-Key': key } });
    expect(list.status).toBe(200);
    const created = await fetch(`${url}/admin/v1/agents`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'survives restarts' }),
    });
    expect(created.status).toBe(201);
    agentId = ((await created.json()) as { id: string }).id;

    expect(await stop(p)).toEqual({ code: 0, signal: null });
    expect(await waitGone(redisPid!)).toBe(true);
    expect(p.logs().some((l) => l['msg'] === 'shutdown complete')).toBe(true);
  });

  it('reuses the key without printing it, and keeps the records across restarts', async () => {
    expect(agentId).not.toBe('');
    const { p, url, redisPid } = await boot({ PARLEY_DATA_DIR: dataDir });
    expect(p.stdout()).not.toMatch(keyPattern);
    const got = await fetch(`${url}/admin/v1/agents/${agentId}`, { headers: { 'X-API-Key': key } });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { name: string }).name).toBe('survives restarts');

    // The embedded server dies: Parley restarts it on the same port and the data is still there.
    process.kill(redisPid!, 'SIGKILL');
    const restarted = await waitForLog(p, /^embedded redis-server restarted$/);
    expect(restarted['pid']).not.toBe(redisPid);
    strayPids.push(restarted['pid'] as number);
    const again = await eventually(
      async () => {
        const res = await fetch(`${url}/admin/v1/agents/${agentId}`, { headers: { 'X-API-Key': key } });
        return { status: res.status, body: (await res.json()) as { name?: string } };
      },
      (r) => r.status === 200,
      { timeoutMs: 15_000, what: 'the agent readable after the redis-server restart' },
    );
    expect(again.body.name).toBe('survives restarts');

    expect(await stop(p)).toEqual({ code: 0, signal: null });
    expect(await waitGone(restarted['pid'] as number)).toBe(true);
  });

  it('after a crash, stops the orphaned redis-server and starts again on the same data', async () => {
    const first = await boot({ PARLEY_DATA_DIR: dataDir });
    first.p.child.kill('SIGKILL');
    await waitForExit(first.p);
    expect(isAlive(first.redisPid!)).toBe(true); // left behind by the crash

    const second = await boot({ PARLEY_DATA_DIR: dataDir });
    expect(await waitGone(first.redisPid!, 1_000)).toBe(true);
    expect(
      second.p.logs().some((l) => l['msg'] === 'stopping a redis-server left running by an earlier Parley process'),
    ).toBe(true);
    const got = await fetch(`${second.url}/admin/v1/agents/${agentId}`, { headers: { 'X-API-Key': key } });
    expect(got.status).toBe(200);
    expect(await stop(second.p)).toEqual({ code: 0, signal: null });
  });

  it('refuses a data folder whose redis-server another running Parley owns', async () => {
    const first = await boot({ PARLEY_DATA_DIR: dataDir });
    const second = startMain({ PARLEY_DATA_DIR: dataDir, PORT: String(await freePort()) });
    const { code } = await waitForExit(second);
    expect(code).toBe(1);
    expect(second.stderr()).toContain('in use by another Parley process');
    expect(isAlive(first.redisPid!)).toBe(true);
    expect(await stop(first.p)).toEqual({ code: 0, signal: null });
  });
});

describe('with REDIS_URL', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await TestRedis.start();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('uses that server and a key from PARLEY_ADMIN_API_KEY, writing nothing to the data folder', async () => {
    const dataDir = tempDir('parley-boot-ext-');
    const adminKey = 'boot-test-admin-key-0123456789';
    const { p, url, redisPid } = await boot({
      PARLEY_DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      PARLEY_ADMIN_API_KEY: adminKey,
    });
    expect(redisPid).toBeUndefined();
    expect(p.stdout()).not.toMatch(keyPattern);
    expect((await fetch(`${url}/admin/v1/agents`, { headers: { 'X-API-Key': adminKey } })).status).toBe(200);
    expect(await stop(p)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, 'admin-api-key'))).toBe(false);
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  });

  it('prints readable lines instead of JSON with PARLEY_LOG_FORMAT=pretty (uncoloured: stdout is a pipe)', async () => {
    const port = await freePort();
    const p = startMain({
      PORT: String(port),
      REDIS_URL: redis.url,
      PARLEY_ADMIN_API_KEY: 'boot-test-admin-key-0123456789',
      PARLEY_LOG_FORMAT: 'pretty',
    });
    await eventually(
      () => Promise.resolve(p.stdout()),
      (out) => out.includes('Parley listening on') || p.child.exitCode !== null,
      { timeoutMs: 30_000, what: 'the listening line' },
    );
    const lines = p.stdout().trimEnd().split('\n');
    expect(lines).toContainEqual(
      `${lines.at(-1)!.slice(0, 8)} INFO  Parley listening on http://127.0.0.1:${port} port=${port} workers=1 redis=external`,
    );
    expect(
      lines.every((l) => /^\d\d:\d\d:\d\d (INFO |WARN ) \S/.test(l)),
      p.stdout(),
    ).toBe(true);
    expect(p.stdout()).not.toContain('\u001b[');
    expect(await stop(p)).toEqual({ code: 0, signal: null });
  });
});

describe('refuses to start', () => {
  it('in production without PARLEY_ADMIN_API_KEY', async () => {
    const p = startMain({ NODE_ENV: 'production', PARLEY_DATA_DIR: tempDir('parley-boot-prod-'), PORT: '0' });
    const { code } = await waitForExit(p);
    expect(code).toBe(1);
    expect(p.stderr()).toMatch(/PARLEY_ADMIN_API_KEY is required when NODE_ENV=production/);
    expect(p.stdout()).not.toMatch(keyPattern);
  });

  it('with a bad PORT, naming it', async () => {
    const p = startMain({ PORT: 'abc', PARLEY_LOG_LEVEL: 'loud', PARLEY_DATA_DIR: tempDir('parley-boot-port-') });
    const { code } = await waitForExit(p);
    expect(code).toBe(1);
    const lines = p.stderr().split('\n');
    expect(lines.filter((l) => /^\s*PORT: /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^\s*PARLEY_LOG_LEVEL: /.test(l))).toHaveLength(1);
  });

  it('without redis-server on PATH, saying how to get it', async () => {
    const bin = tempDir('parley-boot-path-');
    symlinkSync(process.execPath, join(bin, 'node'));
    const p = startMain({ PATH: bin, PARLEY_DATA_DIR: tempDir('parley-boot-noredis-'), PORT: '0' });
    const { code } = await waitForExit(p);
    expect(code).toBe(1);
    const stderr = p.stderr();
    expect(stderr).toContain('redis-server was not found');
    expect(stderr).toContain('apt-get install redis-server');
    expect(stderr).toContain('brew install redis');
    expect(stderr).toContain('REDIS_URL');
  });
});
