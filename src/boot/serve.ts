import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Parley } from '../parley.js';
import { BootError } from './boot-error.js';
import type { Shutdown } from './shutdown.js';

/**
 * Opens Parley on the resolved admin key and Redis URL, registers its shutdown step and listens:
 * the single process does this, and so does each cluster worker (on the port they share).
 */
export async function serveParley(
  config: Config,
  resolved: { adminApiKey: string; redisUrl: string },
  logger: Logger,
  shutdown: Shutdown,
): Promise<{ parley: Parley; port: number }> {
  // Loaded only now: a bad config or a missing redis-server is reported before the app's modules load.
  const { openParley } = await import('../parley.js');
  const parley = await openParley(Object.freeze({ ...config, ...resolved }), logger);
  shutdown.add('parley', () => parley.close());
  try {
    return { parley, port: await parley.listen() };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw new BootError(`cannot listen on ${config.host}:${config.port} (${(err as Error).message}); set PORT`);
    }
    throw err;
  }
}

/** The address to show for a bound port. */
export function shownUrl(config: Config, port: number): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return config.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
