import { z } from 'zod';
import { errorStatuses } from '../../../schemas/error-record.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const errorIdParams = idParam('error');

export const listErrorsQuery = z.object({
  ...pageQueryShape,
  agent_id: idParam('agent', 'agent_id').shape.agent_id.optional(),
  session_id: idParam('session', 'session_id').shape.session_id.optional(),
  type: z.string().min(1).max(100).optional().meta({ description: 'Error type, e.g. webhook_timeout' }),
  status: z.enum(errorStatuses).optional(),
});
