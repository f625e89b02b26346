/**
 * The telephony bench's Parley, in a process of its own so that its CPU (/proc) is Parley's alone:
 * Twilio configured (the bench's auth token), instant STT and TTS (bench/lib/instant-speech.ts), so
 * that what is left is Parley's own work, the carrier transport's μ-law and resampling included.
 */
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { openParley } from '../../src/parley.js';
import { instantSpeech } from '../lib/instant-speech.js';
import { announceListening } from '../lib/server-process.js';
import { adminKey } from '../voice/options.js';
import { testModelsDir } from '../../test/support/test-models.js';

export const benchAuthToken = 'telephony-bench-auth-token';

export async function serveParley(redisUrl: string): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'production',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_ADMIN_API_KEY: adminKey,
    REDIS_URL: redisUrl,
    PARLEY_WORKERS: '1',
    PARLEY_RATE_LIMIT_RPM: '1000000',
    PARLEY_RATE_LIMIT_BURST: '1000000',
    MODELS_DIR: await testModelsDir(),
    TWILIO_AUTH_TOKEN: benchAuthToken,
  });
  const parley = await openParley({ ...config, adminApiKey: adminKey, redisUrl }, createLogger(config.logLevel), {
    speech: instantSpeech(),
  });
  announceListening(await parley.listen(0, '127.0.0.1'), () => parley.close());
}
