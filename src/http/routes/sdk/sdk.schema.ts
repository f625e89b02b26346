import { z } from 'zod';
import { isId } from '../../../ids/id-format.js';

const agentToken = z.string().min(1).max(256).meta({ description: 'Agent token issued for the agent (`pat_…`)' });
const userId = z
  .string()
  .min(1)
  .max(200)
  .meta({ description: 'End-user identifier, used for conversation segmentation' });

export const chatBody = (maxMessageChars: number) =>
  z
    .strictObject({
      agent_token: agentToken,
      message: z
        .string()
        .trim()
        .min(1)
        .max(maxMessageChars)
        .meta({ description: `Text message (at most ${maxMessageChars} characters)` }),
      session_id: z
        .string()
        .refine((v) => isId('session', v), { message: 'must be a ses_… id returned by an earlier call' })
        .optional()
        .meta({ description: 'Continue an existing session' }),
      user_id: userId.optional(),
    })
    .meta({ id: 'ChatRequest' });

export const chatResponse = z
  .object({
    session_id: z.string().meta({ description: 'Send it again to continue the conversation' }),
    response: z.string().meta({ description: "The agent's text answer" }),
    mode: z.enum(['enhanced', 'passthrough']),
    ended: z.literal(true).optional().meta({
      description:
        'Present only when this answer ended the session (the webhook asked for `end_call` or `transfer`); a new message then starts a new session.',
    }),
    transfer: z
      .object({ to: z.string().nullable() })
      .optional()
      .meta({ description: 'Present only for a transfer: hand the user over to `to` (null: your app decides).' }),
  })
  .meta({ id: 'ChatResponse' });

export const sessionBody = z
  .strictObject({
    agent_token: agentToken,
    user_id: userId.optional(),
    transport: z.enum(['livekit', 'websocket']).optional().meta({
      description:
        "Media transport: `livekit` or Parley's built-in `websocket` endpoint. Left out: LiveKit when the server has it, else the WebSocket endpoint.",
    }),
  })
  .meta({ id: 'VoiceSessionRequest' });

export const sessionResponse = z
  .object({
    session_id: z.string(),
    connection_token: z.string().meta({ description: 'Signed JWT for the real-time media connection' }),
    connection_url: z.string().meta({ description: 'WebSocket URL of the media service' }),
    warnings: z.array(z.string()).meta({
      description:
        "Why the agent cannot serve here (the same strings as the agent's `warnings` in the Admin API); empty when it can. The session opens all the same: a turn it cannot answer gets an `error` message (`turn_failed`, with its `reason`) and the agent's `fallback_line`.",
    }),
  })
  .meta({ id: 'VoiceSessionResponse' });
