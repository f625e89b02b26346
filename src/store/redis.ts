import { createClient } from 'redis';
import type { Logger } from 'pino';

export type Redis = ReturnType<typeof createClient>;

export interface RedisOptions {
  url: string;
  logger?: Logger;
}

/**
 * Connects a client that reconnects forever with capped backoff, so readiness returns on its own
 * when Redis comes back. Commands issued while disconnected fail fast instead of queueing.
 */
export async function connectRedis({ url, logger }: RedisOptions): Promise<Redis> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000),
    },
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) logger?.warn({ err: err.message }, 'redis connection error');
    down = true;
  });
  client.on('ready', () => {
    if (down) logger?.info('redis connection restored');
    down = false;
  });
  await client.connect();
  return client;
}
