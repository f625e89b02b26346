import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildClient } from '../../scripts/build-client.js';
import { clientBuildDir } from '../../src/http/routes/client/client-files.js';
import type { VoiceConnection } from '../../src/client/voice-connection.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The built SDK as Parley serves it: /sdk/v1/client.js is a dependency-free ES module that Node 20
 * imports and uses as is, /sdk/v1/audio-worklet.js its worklet; both loadable from any origin, and
 * the SDK endpoints answer CORS preflights.
 */

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let dir: string;

beforeAll(async () => {
  await buildClient();
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Served and answered.' } }));
  p = await startParley(redis);
  dir = await mkdtemp(join(tmpdir(), 'parley-client-'));
});

afterAll(async () => {
  await p?.close();
  await webhook?.close();
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the served client SDK', () => {
  it('GET /sdk/v1/client.js is an ES module with no imports that runs a voice session on Node', async () => {
    const res = await fetch(`${p.url}/sdk/v1/client.js`, { headers: { Origin: 'https://shop.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const source = await res.text();
    expect(source).not.toMatch(/^\s*import\s/m);

    const file = join(dir, 'parley-client.mjs');
    await writeFile(file, source);
    // Typed by the Node-side module only (the bundle also holds the browser parts).
    const sdk = (await import(pathToFileURL(file).href)) as { VoiceConnection: typeof VoiceConnection };
    const agent = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'served', mode: 'passthrough', webhook_url: webhook.url },
    });
    const connection = await sdk.VoiceConnection.connect({
      baseUrl: p.url,
      agentToken: agent.body.agent_token,
      WebSocket,
    });
    const response = connection.once('response');
    connection.sendText('does the served bundle work');
    expect((await response).text).toBe('Served and answered.');
    expect((await connection.end()).reason).toBe('client_hangup');
  });

  it('is built as a package: manifest, bundle, worklet and type declarations', async () => {
    const manifest = JSON.parse(await readFile(join(clientBuildDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@parley/client', type: 'module', types: './types/index.d.ts' });
    const types = await readFile(join(clientBuildDir, 'types', 'index.d.ts'), 'utf8');
    expect(types).toContain('VoiceConnection');
    expect(types).toContain('VoiceCall');
  });

  it('serves the worklet, revalidates by ETag', async () => {
    const res = await fetch(`${p.url}/sdk/v1/audio-worklet.js`);
    expect(res.status).toBe(200);
    const source = await res.text();
    expect(source).toMatch(/registerProcessor\(["']parley-capture["']/);
    expect(source).toMatch(/registerProcessor\(["']parley-playback["']/);
    const etag = res.headers.get('etag')!;
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await fetch(`${p.url}/sdk/v1/audio-worklet.js`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers CORS preflights of the SDK API, and its errors carry CORS headers too', async () => {
    const preflight = await fetch(`${p.url}/sdk/v1/session`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://shop.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type/i);

    const bad = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: 'pat_nope', transport: 'websocket' },
      headers: { Origin: 'https://shop.example' },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    expect(bad.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    // The Admin API stays same-origin.
    const admin = await fetch(`${p.url}/admin/v1/agents`, { headers: { Origin: 'https://shop.example' } });
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
  });
});
