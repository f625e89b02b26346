import cluster from 'node:cluster';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { generatedKeyBanner, resolveAdminKey } from './boot/admin-key.js';
import { BootError } from './boot/boot-error.js';
import { routeEscapedErrors } from './boot/escaped-errors.js';
import type { BootMessage } from './boot/cluster/messages.js';
import { receiveBoot, reportReady, serveClusterMetrics } from './boot/cluster/worker-process.js';
import { WorkerPool } from './boot/cluster/worker-pool.js';
import { EmbeddedRedis } from './boot/redis-server.js';
import { serveParley, shownUrl } from './boot/serve.js';
import { Shutdown } from './boot/shutdown.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createLogger } from './logging/logger.js';
import type { Parley } from './parley.js';

type Crash = (err: unknown, what: string) => never;

/** How much longer than PARLEY_SHUTDOWN_TIMEOUT_MS the primary's own shutdown may take. */
const primaryShutdownMarginMs = 5_000;

/**
 * Boot: config → logger → admin key → Redis (REDIS_URL, or an embedded redis-server) → Parley →
 * listen. With PARLEY_WORKERS > 1 this process is the cluster's primary: it does the same up to
 * Redis, then forks the workers, each of which opens Parley on the shared port (runWorker).
 * SIGTERM/SIGINT shut down gracefully. An uncaught error from a voice session's work ends that
 * session alone; any other logs fatal and exits 1 (boot/escaped-errors.ts).
 */
async function main(): Promise<void> {
  const config = readConfig();
  // A worker first takes its slot, admin key and Redis URL from the primary (milliseconds).
  const worker = cluster.isWorker ? await receiveBoot() : undefined;
  const logger = createLogger(config.logLevel, config.logFormat).child(
    worker === undefined ? {} : { worker: worker.slot },
  );
  // The primary waits for its workers' own bounded shutdown, then stops Redis: a few seconds more.
  const timeoutMs =
    cluster.isPrimary && config.workers > 1 && config.shutdownTimeoutMs > 0
      ? config.shutdownTimeoutMs + primaryShutdownMarginMs
      : config.shutdownTimeoutMs;
  const shutdown = new Shutdown(logger, timeoutMs);
  const crash: Crash = (err, what) => {
    logger.fatal({ err }, what);
    shutdown.runUrgent();
    process.exit(1);
  };
  routeEscapedErrors(crash);
  shutdown.listen(['SIGTERM', 'SIGINT'], worker === undefined ? 'force' : 'ignore');

  try {
    if (worker === undefined) await boot(config, logger, shutdown, crash);
    else await runWorker(config, worker, logger, shutdown);
  } catch (err) {
    if (!(err instanceof BootError)) crash(err, 'boot failed');
    process.stderr.write(`parley: ${err.message}\n`);
    await shutdown.close();
    process.exit(1);
  }
}

async function boot(config: Config, logger: Logger, shutdown: Shutdown, crash: Crash): Promise<void> {
  const adminKey = await resolveAdminKey(config);
  if (adminKey.source === 'generated') {
    process.stdout.write(generatedKeyBanner(adminKey));
    logger.info({ path: adminKey.path }, 'generated an admin API key');
  } else {
    logger.info({ source: adminKey.source, path: adminKey.path }, 'admin API key loaded');
  }

  let redisUrl = config.redisUrl;
  if (redisUrl === undefined) {
    const embedded = await EmbeddedRedis.start({
      dir: join(config.dataDir, 'redis'),
      logger,
      onGiveUp: (err) => crash(err, 'embedded redis-server keeps failing'),
    });
    shutdown.add(
      'redis-server',
      () => embedded.stop(),
      () => embedded.killNow(),
    );
    redisUrl = embedded.url;
  }

  const resolved = { adminApiKey: adminKey.key, redisUrl };
  let port: number;
  if (config.workers === 1) {
    port = (await serveParley(config, () => openParleyOn(config, resolved, logger, true), shutdown)).port;
  } else {
    const pool = new WorkerPool({
      size: config.workers,
      boot: resolved,
      logger,
      onGiveUp: (err) => {
        logger.fatal({ err }, 'worker processes keep failing: shutting down');
        void shutdown.close().then(() => process.exit(1));
      },
    });
    // Registered after Redis, so it runs first: every worker drains before Redis stops.
    shutdown.add(
      'workers',
      () => pool.stop(),
      () => pool.killNow(),
    );
    try {
      port = await pool.start();
    } catch (err) {
      // The worker printed why (e.g. the port is taken); the others are stopped by the shutdown.
      throw new BootError((err as Error).message);
    }
  }
  const url = shownUrl(config, port);
  logger.info(
    {
      url,
      port,
      host: config.host,
      workers: config.workers,
      redis: config.redisUrl === undefined ? 'embedded' : 'external',
    },
    `Parley listening on ${url}`,
  );
}

/** A cluster worker: Parley on the shared port, with the primary's admin key and Redis URL. */
async function runWorker(config: Config, slot: BootMessage, logger: Logger, shutdown: Shutdown): Promise<void> {
  const open = () => openParleyOn(config, slot, logger, slot.reportsStartup);
  const { parley, port } = await serveParley(config, open, shutdown);
  parley.metrics.joinCluster(slot.slot, serveClusterMetrics(parley.metrics, logger));
  reportReady(port);
}

/**
 * Parley on the resolved admin key and Redis URL (the single process's, or a cluster worker's);
 * `reportsStartup`: whether this process logs what the server uses (once per server).
 */
async function openParleyOn(
  config: Config,
  resolved: { adminApiKey: string; redisUrl: string },
  logger: Logger,
  reportsStartup: boolean,
): Promise<Parley> {
  // Loaded only now: a bad config or a missing redis-server is reported before the app's modules load.
  const { openParley } = await import('./parley.js');
  const { adminApiKey, redisUrl } = resolved;
  return openParley(Object.freeze({ ...config, adminApiKey, redisUrl }), logger, { reportsStartup });
}

/** The config, or exit 1 after one stderr line per bad variable. */
function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`parley: invalid configuration\n${err.problems.map((p) => `  ${p}\n`).join('')}`);
    process.exit(1);
  }
}

await main();
