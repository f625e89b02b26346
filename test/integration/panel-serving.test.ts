import Koa from 'koa';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPanel } from '../../scripts/build-panel.js';
import { errorHandler } from '../../src/http/middleware/errors.js';
import { requestId } from '../../src/http/middleware/request-id.js';
import { panelCsp, panelMiddleware, type PanelOptions } from '../../src/http/routes/panel/panel.js';

/** The /home static serving on its own: a Koa app with the error handler and the panel middleware. */
async function serve(options: PanelOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  app.use(requestId());
  app.use(errorHandler(pino({ level: 'silent' })));
  app.use(panelMiddleware(options));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-panel-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serving /home', () => {
  it('answers 503 panel_not_built in the error shape until a build is there, then serves it', async () => {
    const server = await serve({ dir: join(dir, 'panel') });
    try {
      const res = await fetch(`${server.url}/home`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
      expect(body.error.code).toBe('panel_not_built');
      expect(body.error.message).toContain('npm run build');
      expect(body.error.request_id).toMatch(/^req_/);

      await buildPanel({ outDir: join(dir, 'panel') });
      const built = await fetch(`${server.url}/home/conversations/cnv_x`);
      expect(built.status).toBe(200);
      expect(await built.text()).toContain('/home/assets/main-');
    } finally {
      await server.close();
    }
  });

  it('leaves other paths alone and refuses methods other than GET and HEAD', async () => {
    const server = await serve({ dir: join(dir, 'panel') });
    try {
      expect((await fetch(`${server.url}/homeward`)).status).toBe(404);
      const put = await fetch(`${server.url}/home/agents`, { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, HEAD');
      const head = await fetch(`${server.url}/home`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    } finally {
      await server.close();
    }
  });

  it('revalidates index.html by ETag and sends compressed assets to clients that accept them', async () => {
    const server = await serve({ dir: join(dir, 'panel') });
    try {
      const index = await fetch(`${server.url}/home`);
      const etag = index.headers.get('etag')!;
      expect(etag).toMatch(/^W\/".+"$/);
      // As a browser revalidates (fetch alone would add `Cache-Control: no-cache` to a conditional request).
      const again = await fetch(`${server.url}/home`, {
        headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' },
      });
      expect(again.status).toBe(304);

      const script = /src="([^"]+\.js)"/.exec(await index.text())![1]!;
      for (const encoding of ['br', 'gzip']) {
        // fetch decodes the body itself; the header says what travelled.
        const asset = await fetch(`${server.url}${script}`, { headers: { 'Accept-Encoding': encoding } });
        expect(asset.headers.get('content-encoding')).toBe(encoding);
        expect(asset.headers.get('vary')).toContain('Accept-Encoding');
        expect(await asset.text()).toContain('Parley');
      }
    } finally {
      await server.close();
    }
  });

  it('allows the public WebSocket origin in connect-src when PARLEY_PUBLIC_URL is set', () => {
    expect(panelCsp()).toContain("connect-src 'self';");
    expect(panelCsp('https://voice.example.com')).toContain(
      "connect-src 'self' wss://voice.example.com https://voice.example.com;",
    );
  });
});
