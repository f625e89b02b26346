import { z } from 'zod';

const nodeSchema = z
  .object({
    id: z.string().meta({ description: 'The process (host/pid/random): the name its session leases carry.' }),
    server_id: z
      .string()
      .meta({ description: 'The server it belongs to: host/pid of its cluster primary, else its own host/pid.' }),
    host: z.string(),
    pid: z.number().int(),
    version: z.string(),
    http_url: z.string().nullable().meta({ description: 'Where it listens; null until it listens.' }),
    started_at: z.iso.datetime(),
    last_heartbeat_at: z.iso.datetime().meta({ description: 'Its last heartbeat in Redis (every 2.5 s).' }),
    sessions: z
      .object({ livekit: z.number().int(), websocket: z.number().int(), total: z.number().int() })
      .meta({ description: 'Live voice sessions it runs, by transport.' }),
    load: z.number().meta({ description: 'Live sessions over capacity, 0–1 (what LiveKit is told).' }),
    capacity: z.number().int().meta({ description: 'PARLEY_MAX_SESSIONS.' }),
    draining: z.boolean().meta({ description: 'Shutting down: takes no new LiveKit jobs.' }),
    livekit_state: z
      .enum(['not_configured', 'connecting', 'registered', 'reconnecting', 'stopped'])
      .meta({ description: 'Its LiveKit agent-worker connection.' }),
  })
  .meta({ id: 'Node' });

export const nodeListSchema = z
  .object({
    data: z.array(nodeSchema).meta({
      description:
        'Every Parley process with a live heartbeat in Redis, oldest first; one that stops beating (killed, or cut off from Redis) leaves within 10 s.',
    }),
    totals: z.object({
      nodes: z.number().int().meta({ description: 'Processes listed.' }),
      servers: z.number().int().meta({ description: 'Distinct server_id values.' }),
      sessions: z.number().int(),
      capacity: z.number().int(),
    }),
  })
  .meta({ id: 'NodeList' });

export type NodeList = z.infer<typeof nodeListSchema>;
