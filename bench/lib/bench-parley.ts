/**
 * The benches' own Parley, opened in process as main.ts wires it: the configuration every bench
 * measures with (production, log level silent, the bench's admin key, rate limits out of reach,
 * the test models unless `env` names others), and the child-process side of spawnServer.
 */
import { loadConfig, type Config } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import type { OpenParleyOptions, Parley } from '../../src/parley.js';
import { openListening } from '../../test/support/open-parley.js';
import { testModelsDir } from '../../test/support/test-models.js';
import { benchAdminKey } from './bench-api.js';
import { announceListening } from './server-process.js';

/** The bench configuration on `redisUrl`, `env` on top (a variable set to undefined is left to its default). */
export async function benchConfig(redisUrl: string, env: Record<string, string | undefined> = {}): Promise<Config> {
  return loadConfig({
    NODE_ENV: 'production',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_ADMIN_API_KEY: benchAdminKey,
    REDIS_URL: redisUrl,
    PARLEY_RATE_LIMIT_RPM: '1000000',
    PARLEY_RATE_LIMIT_BURST: '1000000',
    MODELS_DIR: await testModelsDir(),
    ...env,
  });
}

/** A Parley of `config` in this process, listening on a random port of 127.0.0.1, logging at its level. */
export function openBenchParley(
  config: Config,
  options: OpenParleyOptions = {},
): Promise<{ parley: Parley; url: string }> {
  return openListening(config, options, createLogger(config.logLevel, config.logFormat));
}

/**
 * Child side of spawnServer: a bench Parley on `redisUrl` that announces its port and, on SIGTERM,
 * runs `beforeClose` (a profiler's stop) and closes.
 */
export async function serveBenchParley(
  redisUrl: string,
  env: Record<string, string | undefined> = {},
  options: OpenParleyOptions = {},
  beforeClose: () => Promise<void> = async () => undefined,
): Promise<void> {
  const { parley, url } = await openBenchParley(await benchConfig(redisUrl, env), options);
  announceListening(Number(new URL(url).port), async () => {
    await beforeClose();
    await parley.close();
  });
}
