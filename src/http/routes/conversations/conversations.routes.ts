import { pageSchema } from '../../../schemas/common.js';
import { conversationSchema, conversationWithMessagesSchema } from '../../../schemas/conversation.js';
import type { Recordings } from '../../../call-recordings/recordings.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { conversationIdParams, conversationMessagesQuery, listConversationsQuery } from './conversations.schema.js';

const tag = 'Conversations';

/** Conversations, each with what its record says of its recording (`recording`, see recording-facts.ts). */
export function conversationRoutes(store: Store, recordings: Pick<Recordings, 'describe'>): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/conversations',
      operationId: 'listConversations',
      summary: 'List conversations (one per session), newest first',
      tag,
      query: listConversationsQuery,
      responses: {
        200: { description: 'A page of conversations', schema: pageSchema(conversationSchema, 'ConversationPage') },
      },
      handler: async (_ctx, { query }) => {
        const { limit, cursor, from, to, ...filter } = query;
        const page = await store.conversations.list({ limit, cursor, from, to }, filter);
        return { body: { ...page, data: await Promise.all(page.data.map((c) => recordings.describe(c))) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/conversations/:id',
      operationId: 'getConversation',
      summary:
        'Get a conversation with its messages, oldest first (the latest 500 unless `limit`/`before` say otherwise)',
      tag,
      params: conversationIdParams,
      query: conversationMessagesQuery,
      errors: [404],
      responses: { 200: { description: 'The conversation and its messages', schema: conversationWithMessagesSchema } },
      handler: async (_ctx, { params, query }) => ({
        body: await recordings.describe(await store.conversations.getWithMessages(params.id, query)),
      }),
    }),
  ];
}
