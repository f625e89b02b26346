/**
 * Parley as `PARLEY_WORKERS=<k>` runs it, for bench/voice-workers.ts: this script is both the
 * cluster's primary (src/boot/cluster/worker-pool.ts forks the workers, as src/main.ts does) and
 * its workers, which open Parley with the bench's instant STT/TTS (bench/lib/instant-speech.ts)
 * on the port they share. `node --import tsx bench/voice/cluster-server.ts <k>` with REDIS_URL set.
 */
import cluster from 'node:cluster';
import { pino } from 'pino';
import { WorkerPool } from '../../src/boot/cluster/worker-pool.js';
import { receiveBoot, reportReady, serveClusterMetrics } from '../../src/boot/cluster/worker-process.js';
import { loadConfig } from '../../src/config/config.js';
import { openParley } from '../../src/parley.js';
import { instantSpeech } from '../lib/instant-speech.js';
import { announceListening } from '../lib/server-process.js';
import { adminKey } from './options.js';
import { testModelsDir } from '../../test/support/test-models.js';

const logger = pino({ level: 'warn' });
const redisUrl = process.env['REDIS_URL'] ?? '';

if (cluster.isPrimary) {
  const pool = new WorkerPool({
    size: Number(process.argv[2] ?? '1'),
    boot: { adminApiKey: adminKey, redisUrl },
    logger,
    onGiveUp: (err) => {
      console.error(err);
      process.exit(1);
    },
  });
  announceListening(await pool.start(), () => pool.stop());
} else {
  const boot = await receiveBoot();
  const config = loadConfig({
    NODE_ENV: 'production',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_ADMIN_API_KEY: adminKey,
    REDIS_URL: redisUrl,
    PARLEY_RATE_LIMIT_RPM: '1000000',
    PARLEY_RATE_LIMIT_BURST: '1000000',
    PARLEY_MAX_SESSIONS: '100000',
    MODELS_DIR: await testModelsDir(),
  });
  const parley = await openParley({ ...config, ...boot }, pino({ level: 'silent' }), { speech: instantSpeech() });
  parley.metrics.joinCluster(boot.slot, serveClusterMetrics(parley.metrics, logger));
  // Drains when the primary's pool.stop() sends SIGTERM.
  process.once('SIGTERM', () => void parley.close().then(() => process.exit(0)));
  reportReady(await parley.listen(0, '127.0.0.1'));
}
