import { join } from 'node:path';
import type { Logger } from 'pino';
import { generatedKeyBanner, resolveAdminKey } from './boot/admin-key.js';
import { BootError } from './boot/boot-error.js';
import { EmbeddedRedis } from './boot/redis-server.js';
import { Shutdown } from './boot/shutdown.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';

/**
 * Boot: config → logger → admin key → Redis (REDIS_URL, or an embedded redis-server) → Parley →
 * listen. SIGTERM/SIGINT shut down gracefully; an uncaught error logs fatal and exits 1.
 */
async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs);
  const crash: (err: unknown, what: string) => never = (err, what) => {
    logger.fatal({ err }, what);
    shutdown.runUrgent();
    process.exit(1);
  };
  process.on('uncaughtException', (err) => crash(err, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => crash(reason, 'unhandled promise rejection'));
  shutdown.listen();

  try {
    await boot(config, logger, shutdown, crash);
  } catch (err) {
    if (!(err instanceof BootError)) crash(err, 'boot failed');
    process.stderr.write(`parley: ${err.message}\n`);
    await shutdown.close();
    process.exit(1);
  }
}

async function boot(
  config: Config,
  logger: Logger,
  shutdown: Shutdown,
  crash: (err: unknown, what: string) => never,
): Promise<void> {
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

  // Loaded only now: a bad config or a missing redis-server is reported before the app's modules load.
  const { openParley } = await import('./parley.js');
  const parley = await openParley(Object.freeze({ ...config, adminApiKey: adminKey.key, redisUrl }), logger);
  shutdown.add('parley', () => parley.close());
  let port: number;
  try {
    port = await parley.listen();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' || (err as NodeJS.ErrnoException).code === 'EACCES') {
      throw new BootError(`cannot listen on ${config.host}:${config.port} (${(err as Error).message}); set PORT`);
    }
    throw err;
  }
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = config.publicUrl ?? `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  logger.info(
    { url, port, host: config.host, redis: config.redisUrl === undefined ? 'embedded' : 'external' },
    `Parley listening on ${url}`,
  );
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
