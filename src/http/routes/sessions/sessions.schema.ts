import { z } from 'zod';
import { pageSchema } from '../../../schemas/common.js';
import { conversationSchema } from '../../../schemas/conversation.js';
import { sessionSchema, sessionStatuses, sessionTypes } from '../../../schemas/session.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const sessionIdParams = idParam('session');

const agentIdFilter = idParam('agent', 'agent_id').shape.agent_id;

/** Filters shared by GET /sessions and GET /agents/:id/sessions. */
const sessionFilterShape = {
  ...pageQueryShape,
  status: z.enum(sessionStatuses).optional(),
  type: z.enum(sessionTypes).optional(),
  user_id: z.string().min(1).max(200).optional().meta({ description: 'Exact end-user identifier' }),
};

export const listSessionsQuery = z.object({ ...sessionFilterShape, agent_id: agentIdFilter.optional() });

export const agentSessionsQuery = z.object(sessionFilterShape);

export const sessionDetailSchema = sessionSchema
  .extend({
    conversation: conversationSchema.nullable().meta({ description: 'The session’s conversation (without messages).' }),
  })
  .meta({ id: 'SessionDetail' });

export const sessionPageSchema = pageSchema(sessionSchema, 'SessionPage');
