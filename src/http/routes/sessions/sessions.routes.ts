import { sessionOverviewSchema } from '../../../schemas/session.js';
import { NotFoundError } from '../../../errors/app-errors.js';
import type { Recordings } from '../../../call-recordings/recordings.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { listSessionsQuery, sessionDetailSchema, sessionIdParams, sessionPageSchema } from './sessions.schema.js';

const tag = 'Sessions';

export function sessionRoutes(store: Store, recordings: Pick<Recordings, 'describe'>): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/sessions',
      operationId: 'listSessions',
      summary: 'List chat and voice sessions, newest first',
      tag,
      query: listSessionsQuery,
      responses: { 200: { description: 'A page of sessions', schema: sessionPageSchema } },
      handler: async (_ctx, { query }) => {
        const { limit, cursor, from, to, ...filter } = query;
        return { body: await store.sessions.list({ limit, cursor, from, to }, filter) };
      },
    }),
    // Before /sessions/:id, so `stats` is never read as an id.
    defineRoute({
      method: 'get',
      path: '/sessions/stats/overview',
      operationId: 'getSessionOverview',
      summary:
        'Session counts by status, type and end reason; mean duration; turns; sessions started in the last 24 hours',
      tag,
      responses: { 200: { description: 'Overview', schema: sessionOverviewSchema } },
      handler: async () => ({ body: await store.sessions.overview() }),
    }),
    defineRoute({
      method: 'get',
      path: '/sessions/:id',
      operationId: 'getSession',
      summary: 'Get a session with its conversation (messages are at GET /conversations/{id})',
      tag,
      params: sessionIdParams,
      errors: [404],
      responses: { 200: { description: 'The session', schema: sessionDetailSchema } },
      handler: async (_ctx, { params }) => {
        const session = await store.sessions.get(params.id);
        const conversation = await store.conversations.get(session.conversation_id).catch((err: unknown) => {
          if (err instanceof NotFoundError) return null;
          throw err;
        });
        return { body: { ...session, conversation: conversation && (await recordings.describe(conversation)) } };
      },
    }),
  ];
}
