import type { Config } from '../config/config.js';
import { BootError } from './boot-error.js';
import type { Shutdown } from './shutdown.js';

/** What serving needs of the app it opens (src/parley.ts's Parley; boot/ does not import it). */
export interface Servable {
  /** Starts the HTTP server; resolves with the bound port. */
  listen(): Promise<number>;
  /** Stops accepting requests, drains, and closes what the app opened. */
  close(): Promise<void>;
}

/**
 * Opens Parley with `open` (main.ts loads src/parley.ts only there), registers its shutdown step
 * and listens: the single process does this, and so does each cluster worker (on the port they
 * share).
 */
export async function serveParley<App extends Servable>(
  config: Config,
  open: () => Promise<App>,
  shutdown: Shutdown,
): Promise<{ parley: App; port: number }> {
  const parley = await open();
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
