import { z } from 'zod';
import { idParam, pageQueryShape } from '../common.schema.js';

export const conversationIdParams = idParam('conversation');

export const listConversationsQuery = z.object({
  ...pageQueryShape,
  agent_id: idParam('agent', 'agent_id').shape.agent_id.optional(),
  session_id: idParam('session', 'session_id').shape.session_id.optional(),
  user_id: z.string().min(1).max(200).optional().meta({ description: 'Exact end-user identifier' }),
});

export const conversationMessagesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(500)
    .meta({ description: 'Latest messages to return (1-500)' }),
  before: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'A `messages_cursor` from an earlier response: read the messages older than that page' }),
});
