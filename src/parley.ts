import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createApp, type ParleyApp } from './http/app.js';
import { Metrics } from './metrics.js';
import { ProviderRegistry } from './providers/registry.js';
import { connectRedis, type Redis } from './store/redis.js';
import { Store } from './store/store.js';

export interface Parley extends ParleyApp {
  config: Config & { adminApiKey: string };
  redis: Redis;
  store: Store;
  registry: ProviderRegistry;
  metrics: Metrics;
  /** Starts the HTTP server; resolves with the bound port. */
  listen(port?: number, host?: string): Promise<number>;
  /** Stops accepting requests, drains, and closes Redis. */
  close(): Promise<void>;
}

/** Wires one Parley instance: Redis, store, providers, metrics and the HTTP app. Used by main.ts and tests. */
export async function openParley(config: Config & { adminApiKey: string; redisUrl: string }, logger: Logger): Promise<Parley> {
  const redis = await connectRedis({ url: config.redisUrl, logger });
  const store = new Store(redis, config.redisPrefix);
  const registry = new ProviderRegistry(config);
  const metrics = new Metrics(store);
  const { app, areas } = createApp({ config, store, logger, registry, metrics });
  let server: Server | undefined;

  return {
    config,
    app,
    areas,
    redis,
    store,
    registry,
    metrics,
    listen: (port = config.port, host = config.host) =>
      new Promise((resolve, reject) => {
        const s = app.listen(port, host);
        server = s;
        s.once('error', reject);
        s.once('listening', () => {
          const address = s.address();
          resolve(typeof address === 'object' && address !== null ? address.port : port);
        });
      }),
    close: async () => {
      if (server !== undefined) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      redis.destroy();
    },
  };
}
