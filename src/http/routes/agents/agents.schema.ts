import { z } from 'zod';
import { isId } from '../../../ids.js';
import { agentModes } from '../../../records/agent.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const agentIdParams = idParam('agent');

export const listAgentsQuery = z.object({
  ...pageQueryShape,
  mode: z.enum(agentModes).optional(),
  preset_id: z
    .string()
    .refine((v) => isId('preset', v), { message: 'must be a pre_… id' })
    .optional()
    .meta({ description: 'Only agents using this preset' }),
  q: z.string().max(200).optional().meta({ description: 'Case-insensitive substring of the name' }),
});
