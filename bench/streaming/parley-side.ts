/**
 * The streaming bench's Parley, in a process of its own so that its CPU (/proc) is Parley's alone:
 * the real providers, configured by `env` to call the bench's fakes (bench/streaming/fakes.ts).
 */
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { openParley } from '../../src/parley.js';
import { testModelsDir } from '../../test/support/test-models.js';
import { announceListening } from '../lib/server-process.js';
import { adminKey } from '../voice/options.js';

export async function serveParley(redisUrl: string, env: Record<string, string>): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'production',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_ADMIN_API_KEY: adminKey,
    REDIS_URL: redisUrl,
    PARLEY_WORKERS: '1',
    PARLEY_RATE_LIMIT_RPM: '1000000',
    PARLEY_RATE_LIMIT_BURST: '1000000',
    MODELS_DIR: await testModelsDir(),
    // Silero scores every window, the silence between questions too, as on a real (noisy) line:
    // the bench's silence is digital zeros, which the floor would skip.
    PARLEY_VAD_SILENCE_FLOOR_DBFS: 'off',
    ...env,
  });
  const parley = await openParley({ ...config, adminApiKey: adminKey, redisUrl }, createLogger(config.logLevel));
  announceListening(await parley.listen(0, '127.0.0.1'), () => parley.close());
}
