import { z } from 'zod';
import { instanceStatusSchema } from '../../../realtime/livekit/heartbeat.js';
import { sessionStatuses } from '../../../schemas/session.js';
import { idParam } from '../common.schema.js';

const livekitRoomSchema = z
  .object({
    name: z.string(),
    sid: z.string(),
    num_participants: z.number().int().meta({ description: 'Participants in the room now (the agent included).' }),
    num_publishers: z.number().int(),
    created_at: z.iso.datetime().meta({ description: 'When LiveKit created the room.' }),
    duration_ms: z.number().int().meta({ description: 'How long the room has existed.' }),
    metadata: z.string(),
    session: z
      .object({
        id: z.string(),
        agent_id: z.string(),
        status: z.enum(sessionStatuses),
        user_id: z.string().nullable(),
        started_at: z.string(),
        duration_ms: z
          .number()
          .int()
          .meta({ description: 'From the session start to its end, or to now while active.' }),
        turns: z.number().int(),
      })
      .nullable()
      .meta({ description: 'The Parley session in this room; null for rooms Parley has no session for.' }),
    job: z
      .object({ job_id: z.string(), worker_id: z.string().nullable(), instance_id: z.string() })
      .nullable()
      .meta({ description: 'The LiveKit job running the session, while it runs.' }),
  })
  .meta({ id: 'LivekitRoom' });

export const livekitRoomListSchema = z.object({ data: z.array(livekitRoomSchema) }).meta({ id: 'LivekitRoomList' });

export const workerStatusSchema = z
  .object({
    livekit: z.object({
      configured: z.boolean().meta({ description: 'LiveKit is configured on the instance that answered.' }),
      url: z.string().nullable(),
      agent_name: z.string(),
      message: z.string().meta({ description: 'A one-line summary.' }),
    }),
    instances: z
      .array(instanceStatusSchema)
      .meta({ description: 'Every Parley instance with a live heartbeat in Redis (every 2.5 s), LiveKit or not.' }),
    totals: z.object({
      instances: z.number().int(),
      registered: z.number().int(),
      sessions: z.number().int(),
      capacity: z.number().int(),
    }),
  })
  .meta({ id: 'LivekitWorkerStatus' });

/** LiveKit room names Parley dispatches to: no spaces, slashes or control characters. */
const roomName = z
  .string()
  .regex(/^[A-Za-z0-9_.:@+=-]{1,128}$/, 'must be 1–128 letters, digits or _ . : @ + = -')
  .meta({ description: 'LiveKit room name; created by LiveKit when it does not exist yet.' });

export const dispatchBody = z
  .strictObject({
    agent_id: idParam('agent', 'agent_id').shape.agent_id.meta({ description: 'The Parley agent to run in the room.' }),
    room: roomName,
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Extra job metadata (JSON object); `agent_id` is always set to the agent above.' }),
  })
  .meta({ id: 'LivekitDispatchRequest' });

export const dispatchResponse = z
  .object({
    dispatch_id: z.string(),
    room: z.string(),
    agent_name: z.string().meta({ description: 'The LiveKit agent name dispatched (PARLEY_LIVEKIT_AGENT_NAME).' }),
    agent_id: z.string(),
    metadata: z.record(z.string(), z.unknown()).meta({ description: 'The job metadata sent.' }),
  })
  .meta({ id: 'LivekitDispatch' });
