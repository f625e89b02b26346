import { pino, type Logger } from 'pino';
import type { Config } from '../../src/config/config.js';
import { openParley, type OpenParleyOptions, type Parley } from '../../src/parley.js';

/**
 * A real Parley in this process, as the tests and the benches open one: on the Redis and with the
 * admin key its configuration names (both required here), its logger silent unless given.
 */
export function openFromConfig(
  config: Config,
  options: OpenParleyOptions = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<Parley> {
  const { adminApiKey, redisUrl } = config;
  if (adminApiKey === undefined || redisUrl === undefined)
    throw new Error('a test Parley needs an admin key and a Redis');
  return openParley({ ...config, adminApiKey, redisUrl }, logger, options);
}

/** `openFromConfig`, then listening on a random port of 127.0.0.1; with its `http://` URL. */
export async function openListening(
  config: Config,
  options: OpenParleyOptions = {},
  logger?: Logger,
): Promise<{ parley: Parley; url: string }> {
  const parley = await openFromConfig(config, options, logger);
  return { parley, url: `http://127.0.0.1:${await parley.listen(0, '127.0.0.1')}` };
}
