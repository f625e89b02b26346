import { z } from 'zod';
import { AppError } from '../../../errors/app-errors.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { ClientFiles, type ClientFileName } from './client-files.js';

const tag = 'Client SDK';
const javascript = z.string().meta({ description: 'JavaScript (ES module)' });

/**
 * The client SDK as Parley serves it: `GET /sdk/v1/client.js` (the ES module) and
 * `GET /sdk/v1/audio-worklet.js` (its AudioWorklet processors). Public, cacheable for five minutes
 * and revalidated by ETag, loadable from any origin (module scripts and worklets
 * are fetched with CORS; sdkCors answers it for everything under /sdk/).
 */
export function clientRoutes(files = new ClientFiles()): RouteDef[] {
  const serve = (name: ClientFileName, operationId: string, summary: string) =>
    defineRoute({
      method: 'get',
      path: `/sdk/v1/${name}`,
      operationId,
      summary,
      tag,
      errors: [503],
      responses: {
        200: { description: 'The module', schema: javascript, contentType: 'text/javascript' },
        304: { description: 'Not modified (If-None-Match)' },
      },
      handler: async (ctx) => {
        const file = await files.get(name);
        if (file === null) {
          throw new AppError(503, 'client_not_built', 'the client SDK is not built here: run `npm run build`');
        }
        const headers = {
          'Content-Type': 'text/javascript; charset=utf-8',
          'Cache-Control': 'public, max-age=300',
          ETag: file.etag,
          'Cross-Origin-Resource-Policy': 'cross-origin',
        };
        if (ctx.get('If-None-Match') === file.etag) return { status: 304, headers };
        return { headers, body: file.body };
      },
    });
  return [
    serve('client.js', 'clientSdk', 'The client SDK for the WebSocket voice transport (ES module, no dependencies)'),
    serve(
      'audio-worklet.js',
      'clientSdkWorklet',
      "The client SDK's AudioWorklet processors (microphone capture, playback)",
    ),
  ];
}
