import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { openParley, type OpenParleyOptions, type Parley } from '../../src/parley.js';
import type { TestRedis } from './redis-server.js';

export const testAdminKey = 'test-admin-key-0123456789';

export interface TestParley {
  parley: Parley;
  url: string;
  /** fetch against the running server; JSON bodies are serialised, the admin key sent unless `apiKey: null`. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  apiKey?: string | null;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** A real Parley on a random port against the given redis-server. */
export async function startParley(
  redis: TestRedis,
  env: Record<string, string> = {},
  options: OpenParleyOptions = {},
): Promise<TestParley> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PARLEY_LOG_LEVEL: 'silent',
    MODELS_DIR: process.env['MODELS_DIR'] ?? '../shared/models',
    ...env,
    REDIS_URL: redis.url,
    PARLEY_ADMIN_API_KEY: env['PARLEY_ADMIN_API_KEY'] ?? testAdminKey,
  });
  const parley = await openParley(
    { ...config, adminApiKey: config.adminApiKey!, redisUrl: config.redisUrl! },
    pino({ level: 'silent' }),
    options,
  );
  const port = await parley.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    parley,
    url,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey !== null) headers['X-API-Key'] ??= options.apiKey ?? testAdminKey;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    close: () => parley.close(),
  };
}
