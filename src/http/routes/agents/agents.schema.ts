import { z } from 'zod';
import { agentModes } from '../../../records/agent.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const agentIdParams = idParam('agent');

export const listAgentsQuery = z.object({
  ...pageQueryShape,
  mode: z.enum(agentModes).optional(),
  preset_id: z.string().optional(),
  q: z.string().max(200).optional().meta({ description: 'Case-insensitive substring of the name' }),
});
