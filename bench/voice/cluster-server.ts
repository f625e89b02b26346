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
import { openParley } from '../../src/parley.js';
import { benchAdminKey } from '../lib/bench-api.js';
import { benchConfig } from '../lib/bench-parley.js';
import { instantSpeech } from '../lib/instant-speech.js';
import { announceListening } from '../lib/server-process.js';

const logger = pino({ level: 'warn' });
const redisUrl = process.env['REDIS_URL'] ?? '';

if (cluster.isPrimary) {
  const pool = new WorkerPool({
    size: Number(process.argv[2] ?? '1'),
    boot: { adminApiKey: benchAdminKey, redisUrl },
    logger,
    onGiveUp: (err) => {
      console.error(err);
      process.exit(1);
    },
  });
  announceListening(await pool.start(), () => pool.stop());
} else {
  const boot = await receiveBoot();
  const config = await benchConfig(redisUrl, { PARLEY_MAX_SESSIONS: '100000' });
  const parley = await openParley({ ...config, ...boot }, pino({ level: 'silent' }), { speech: instantSpeech() });
  parley.metrics.joinCluster(boot.slot, serveClusterMetrics(parley.metrics, logger));
  // Drains when the primary's pool.stop() sends SIGTERM.
  process.once('SIGTERM', () => void parley.close().then(() => process.exit(0)));
  reportReady(await parley.listen(0, '127.0.0.1'));
}
