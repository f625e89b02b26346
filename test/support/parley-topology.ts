import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import type { OpenParleyOptions } from '../../src/parley.js';
import { adminClient } from './admin-client.js';
import { openListening } from './open-parley.js';
import { testAdminKey, type TestParley } from './parley.js';
import { testModelsDir } from './test-models.js';

/**
 * A real Parley (in this process, on a random port) on the Redis its env names: REDIS_SENTINELS
 * or REDIS_CLUSTER_NODES (startParley in parley.ts takes one TestRedis's URL).
 */
export async function startParleyOn(env: Record<string, string>, options: OpenParleyOptions = {}): Promise<TestParley> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PARLEY_LOG_LEVEL: 'silent',
    MODELS_DIR: await testModelsDir(),
    PARLEY_ADMIN_API_KEY: testAdminKey,
    ...env,
  });
  const logger = pino({ level: process.env['PARLEY_TEST_LOG'] ?? 'silent' });
  const { parley, url } = await openListening(config, options, logger);
  return { parley, url, ...adminClient(url, testAdminKey), close: () => parley.close() };
}
