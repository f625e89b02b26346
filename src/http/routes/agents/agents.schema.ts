import { z } from 'zod';
import { isId } from '../../../ids/id-format.js';
import { agentModes, agentSchema } from '../../../schemas/agent.js';
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

const channelReadinessSchema = z
  .object({
    ready: z.boolean(),
    problems: z.array(z.string()).meta({ description: 'Every reason it cannot serve here, each with its fix.' }),
  })
  .meta({ id: 'ChannelReadiness' });

export const readinessSchema = z.object({ voice: channelReadinessSchema, chat: channelReadinessSchema }).meta({
  id: 'AgentReadiness',
  description:
    'Whether the agent can serve voice and chat on this server: voice needs its STT and TTS (and its LLM in enhanced mode), chat its LLM in enhanced mode; passthrough needs a webhook_url. Read from what is installed and configured here, without calling any provider.',
});

export const agentViewSchema = agentSchema
  .extend({
    readiness: readinessSchema,
    warnings: z.array(z.string()).meta({
      description:
        "Why the agent cannot serve voice or chat here (its readiness' problems, once each); empty when it can. A create or update that leaves the agent unable to serve still succeeds and says why here.",
    }),
  })
  .meta({ id: 'Agent' });
