import { afterAll, beforeAll, beforeEach } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { OpenParleyOptions, Parley } from '../../src/parley.js';
import { adminClient, type AdminClient } from './admin-client.js';
import { openListening } from './open-parley.js';
import { TestRedis } from './redis-server.js';
import { testModelsDir } from './test-models.js';

export type { RequestOptions, TestResponse } from './admin-client.js';

export const testAdminKey = 'test-admin-key-0123456789';

export interface TestParley extends AdminClient {
  parley: Parley;
  url: string;
  close(): Promise<void>;
}

/** A real Parley on a random port against the given redis-server. */
export async function startParley(
  redis: TestRedis,
  env: Record<string, string> = {},
  options: OpenParleyOptions = {},
): Promise<TestParley> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PARLEY_LOG_LEVEL: 'silent',
    MODELS_DIR: await testModelsDir(),
    ...env,
    REDIS_URL: redis.url,
    PARLEY_ADMIN_API_KEY: env['PARLEY_ADMIN_API_KEY'] ?? testAdminKey,
  });
  const { parley, url } = await openListening(config, options);
  return {
    parley,
    url,
    ...adminClient(url, testAdminKey),
    close: () => parley.close(),
  };
}

/** A redis-server and a Parley shared by one test file's tests. */
export interface FileBed {
  readonly p: TestParley;
  readonly redis: TestRedis;
  /** Closes this Parley and starts a new one on the same Redis; `between` runs while none is up. */
  restart(between?: () => Promise<void>): Promise<TestParley>;
}

/**
 * Registers the file's hooks: a redis-server and a Parley started before its tests and stopped
 * after them; Redis is flushed before each test.
 */
export function parleyForFile(env: Record<string, string> = {}, options: OpenParleyOptions = {}): FileBed {
  let redis: TestRedis | undefined;
  let parley: TestParley | undefined;
  beforeAll(async () => {
    redis = await TestRedis.start();
    parley = await startParley(redis, env, options);
  });
  afterAll(async () => {
    await parley?.close();
    await redis?.close();
  });
  beforeEach(async () => {
    await redis!.flush();
  });
  return {
    get p() {
      return parley!;
    },
    get redis() {
      return redis!;
    },
    async restart(between) {
      await parley!.close();
      await between?.();
      parley = await startParley(redis!, env, options);
      return parley;
    },
  };
}

/** Parley.close() must finish even after an outage; a hang fails the test with this message instead of a hook timeout. */
export async function closeWithin(parley: TestParley, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Parley.close() did not finish within ${ms} ms after the Redis restart`)),
      ms,
    );
  });
  try {
    await Promise.race([parley.close(), hung]);
  } finally {
    clearTimeout(timer);
  }
}
