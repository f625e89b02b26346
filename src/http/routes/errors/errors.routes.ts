import { pageSchema } from '../../../schemas/common.js';
import { errorRecordSchema, errorResolveSchema, errorSummarySchema } from '../../../schemas/error-record.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { errorIdParams, listErrorsQuery } from './errors.schema.js';

const tag = 'Errors';

export function errorRoutes(store: Store): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/errors',
      operationId: 'listErrors',
      summary: 'List error records (webhook, language model, event delivery, session failures), newest first',
      tag,
      query: listErrorsQuery,
      responses: {
        200: { description: 'A page of error records', schema: pageSchema(errorRecordSchema, 'ErrorRecordPage') },
      },
      handler: async (_ctx, { query }) => {
        const { limit, cursor, from, to, ...filter } = query;
        return { body: await store.errors.list({ limit, cursor, from, to }, filter) };
      },
    }),
    // Before /errors/:id, so `stats` is never read as an id.
    defineRoute({
      method: 'get',
      path: '/errors/stats/summary',
      operationId: 'getErrorSummary',
      summary: 'Error counts: total, open, resolved, by type, and in the last 24 hours',
      tag,
      responses: { 200: { description: 'Summary', schema: errorSummarySchema } },
      handler: async () => ({ body: await store.errors.summary() }),
    }),
    defineRoute({
      method: 'get',
      path: '/errors/:id',
      operationId: 'getError',
      summary: 'Get an error record',
      tag,
      params: errorIdParams,
      errors: [404],
      responses: { 200: { description: 'The error record', schema: errorRecordSchema } },
      handler: async (_ctx, { params }) => ({ body: await store.errors.get(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/errors/:id/resolve',
      operationId: 'resolveError',
      summary: 'Mark an error resolved, with an optional note; resolving it again returns it unchanged',
      tag,
      params: errorIdParams,
      body: errorResolveSchema,
      errors: [404],
      responses: { 200: { description: 'The resolved error record', schema: errorRecordSchema } },
      handler: async (_ctx, { params, body }) => ({ body: await store.errors.resolve(params.id, body.note) }),
    }),
  ];
}
