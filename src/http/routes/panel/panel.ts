import type { Context, Middleware } from 'koa';
import { join } from 'node:path';
import { AppError } from '../../../errors/app-errors.js';
import { projectRoot } from '../../../project/project-root.js';
import { loadPanelFiles, type PanelFile, type PanelFiles } from './panel-files.js';

const panelPath = '/home';
const assetPrefix = `${panelPath}/assets/`;
export const defaultPanelDir = join(projectRoot, 'dist', 'panel');

export interface PanelOptions {
  /** Folder holding the built panel (`npm run build` writes dist/panel). */
  dir?: string;
  /** PARLEY_PUBLIC_URL: its WebSocket origin is allowed for "talk to this agent" voice sessions. */
  publicUrl?: string | undefined;
}

/**
 * The page's Content-Security-Policy: only this origin's own files, no inline script or style, no
 * eval, no frames. `connect-src 'self'` covers the Admin API and same-origin WebSocket media.
 */
export function panelCsp(publicUrl?: string): string {
  const connect = ["'self'"];
  if (publicUrl !== undefined) {
    const url = new URL(publicUrl);
    connect.push(`${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`, url.origin);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "media-src 'self' blob:",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the /home admin panel: `/home/assets/<hashed name>` cached for a year (immutable), every
 * other `/home` path the panel's `index.html` (client-side routes; never cached, revalidated by
 * ETag). The panel holds no secret: every Admin API call it makes carries the key the operator
 * typed. Without a build (`npm run build`) `/home` answers 503 `panel_not_built`.
 * Not part of /openapi.json: these are HTML and static files, not API operations.
 */
export function panelMiddleware(options: PanelOptions = {}): Middleware {
  const dir = options.dir ?? defaultPanelDir;
  const csp = panelCsp(options.publicUrl);
  let files: PanelFiles | undefined;

  return async (ctx, next) => {
    const path = ctx.path;
    if (path !== panelPath && !path.startsWith(`${panelPath}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed here; allowed: GET, HEAD`,
        undefined,
        {
          Allow: 'GET, HEAD',
        },
      );
    }
    files ??= loadPanelFiles(dir);
    if (files === undefined) {
      throw new AppError(
        503,
        'panel_not_built',
        'the admin panel is not built on this server: run `npm run build` (npm start does it), then reload',
      );
    }
    ctx.set('Content-Security-Policy', csp);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()');
    if (path.startsWith(assetPrefix)) {
      const asset = files.assets.get(path.slice(assetPrefix.length));
      if (asset === undefined) throw new AppError(404, 'not_found', `no panel asset ${path}`);
      send(ctx, asset, 'public, max-age=31536000, immutable');
      return;
    }
    send(ctx, files.index, 'no-cache');
  };
}

function send(ctx: Context, file: PanelFile, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', file.etag);
  ctx.vary('Accept-Encoding');
  ctx.type = file.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
  if (encoding === 'br' && file.br !== undefined) {
    ctx.set('Content-Encoding', 'br');
    ctx.body = file.br;
  } else if (encoding === 'gzip' && file.gzip !== undefined) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzip;
  } else {
    ctx.body = file.identity;
  }
}
