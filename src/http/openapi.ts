import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { version } from '../project/version.js';
import type { Area } from './areas.js';
import { defineRoute, openApiPaths, type RouteDef } from './route.js';

/** OpenAPI 3.1, generated from the same zod schemas that validate requests. */
export function buildOpenApi(areas: Area[]): ReturnType<typeof createDocument> {
  const paths = Object.assign({}, ...areas.map((a) => openApiPaths(a.prefix, a.routes, { admin: a.admin })));
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Parley',
      version,
      description:
        'Self-hosted voice-agent service. Admin API under /admin/v1 (X-API-Key), SDK API under /sdk/v1 (agent_token in the body), public health endpoints.',
    },
    components: {
      securitySchemes: { adminApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
    paths,
  });
}

/** GET /openapi.json, itself in the document; `document` is read per request (built after the areas). */
export function openApiRoute(document: () => unknown): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API description (OpenAPI 3.1), generated from the schemas that validate requests',
    tag: 'Meta',
    responses: {
      200: {
        description: 'The OpenAPI document',
        schema: z.looseObject({ openapi: z.literal('3.1.0') }).meta({ id: 'OpenApiDocument' }),
      },
    },
    handler: () => ({ body: document() }),
  });
}
