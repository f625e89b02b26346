import { z } from 'zod';
import { timestampSchema } from './common.js';

export const sessionTypes = ['chat', 'voice'] as const;
export const sessionTransports = ['chat', 'livekit', 'websocket', 'twilio'] as const;
export const sessionStatuses = ['active', 'ended'] as const;
export const sessionEndReasons = [
  'idle_timeout',
  'max_duration',
  'client_hangup',
  'agent_deleted',
  'error',
  'shutdown',
  'never_connected',
  'owner_lost',
  // LiveKit sessions (src/realtime/livekit): the user left the room, the room was closed or deleted,
  // LiveKit terminated the job, or the agent's connection to the room was lost.
  'participant_left',
  'room_closed',
  'job_terminated',
  'livekit_disconnected',
  // Call control (src/actions): the agent hung up (`end_call`), or handed the caller over (`transfer`).
  'agent_hangup',
  'transferred',
] as const;

export type SessionType = (typeof sessionTypes)[number];
export type SessionTransport = (typeof sessionTransports)[number];
export type SessionStatus = (typeof sessionStatuses)[number];
export type SessionEndReason = (typeof sessionEndReasons)[number];

const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const sessionSchema = z
  .object({
    id: z.string().meta({ example: 'ses_01jd3n6v8m0000000000000000' }),
    agent_id: z.string(),
    type: z.enum(sessionTypes).meta({ description: '`chat`: text through /sdk/v1/chat. `voice`: real-time audio.' }),
    transport: z.enum(sessionTransports).meta({
      description:
        'How the client is connected: `chat` (HTTP), `livekit` or `websocket` (media), `twilio` (a phone call through Twilio Media Streams).',
    }),
    status: z.enum(sessionStatuses),
    user_id: z.string().nullable().meta({ description: 'End-user identifier the SDK sent; null when none.' }),
    conversation_id: z.string().meta({ description: 'The conversation holding this session’s messages.' }),
    room: z.string().nullable().meta({ description: 'Real-time room name for voice sessions; null for chat.' }),
    turns: z.number().int().meta({ description: 'Answered user turns.' }),
    started_at: timestampSchema,
    last_activity_at: timestampSchema,
    ended_at: timestampSchema.nullable(),
    end_reason: z.enum(sessionEndReasons).nullable(),
    duration_ms: z.number().int().nullable().meta({
      description: 'From start to end; null while active, and for a voice session that never connected (it never ran).',
    }),
    metadata: z.record(z.string(), metadataValue),
  })
  .meta({ id: 'Session' });

export type Session = z.infer<typeof sessionSchema>;

/** What the SDK and voice code pass to `SessionRepository.create`. */
export interface SessionCreate {
  /** A `ses_…` id made by the caller beforehand (e.g. to name the session's room); new when absent. */
  id?: string | undefined;
  agent_id: string;
  type: SessionType;
  transport: SessionTransport;
  user_id?: string | null | undefined;
  room?: string | null | undefined;
  metadata?: Record<string, string | number | boolean | null> | undefined;
}

const endReasonCounts = z.object(
  Object.fromEntries(sessionEndReasons.map((r) => [r, z.number().int()])) as Record<SessionEndReason, z.ZodNumber>,
);

export const sessionOverviewSchema = z
  .object({
    total: z.number().int().meta({ description: 'Sessions ever started.' }),
    active: z.number().int(),
    ended: z.number().int(),
    by_type: z.object({ chat: z.number().int(), voice: z.number().int() }),
    by_end_reason: endReasonCounts,
    avg_duration_ms: z.number().nullable().meta({
      description: 'Mean duration of ended sessions that ran (not those never connected); null before one has.',
    }),
    turns: z.number().int().meta({ description: 'Answered user turns over all sessions.' }),
    started_last_24h: z.number().int(),
  })
  .meta({ id: 'SessionOverview' });

export type SessionOverview = z.infer<typeof sessionOverviewSchema>;
