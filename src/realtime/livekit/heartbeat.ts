import type { Logger } from 'pino';
import { z } from 'zod';
import type { Store } from '../../store/store.js';

/** One Parley instance as worker-status shows it; written to Redis on every heartbeat. */
export const instanceStatusSchema = z
  .object({
    instance_id: z
      .string()
      .meta({ description: 'This process (host/pid/random), as it holds session leases; a restart is a new id.' }),
    server_id: z.string().meta({
      description:
        'The server (node) the process belongs to: host/pid of its cluster primary (PARLEY_WORKERS > 1), else its own.',
    }),
    host: z.string(),
    pid: z.number().int(),
    http_url: z
      .string()
      .nullable()
      .meta({ description: 'Where this process listens (host name and port); null until it listens.' }),
    version: z.string(),
    livekit: z.object({
      configured: z.boolean().meta({ description: 'LIVEKIT_URL, key and secret are set on this instance.' }),
      registered: z.boolean(),
      state: z
        .enum(['not_configured', 'connecting', 'registered', 'reconnecting', 'stopped'])
        .meta({ description: 'The worker connection to LiveKit.' }),
      reason: z.string().nullable().meta({ description: 'Why it is not registered (the last connection error).' }),
      worker_id: z.string().nullable().meta({ description: 'The id LiveKit gave this worker.' }),
      agent_name: z.string().meta({ description: 'PARLEY_LIVEKIT_AGENT_NAME.' }),
      reconnect_attempts: z.number().int().meta({ description: 'Failed attempts since the last registration.' }),
      next_retry_at: z.iso.datetime().nullable(),
      registered_at: z.iso.datetime().nullable(),
      jobs: z.number().int().meta({ description: 'LiveKit jobs running here.' }),
    }),
    sessions: z
      .object({ livekit: z.number().int(), websocket: z.number().int(), total: z.number().int() })
      .meta({ description: 'Live voice sessions of this instance by transport.' }),
    load: z.number().meta({ description: 'Live sessions over capacity, 0–1 (what LiveKit is told).' }),
    capacity: z.number().int().meta({ description: 'PARLEY_MAX_SESSIONS.' }),
    draining: z.boolean().meta({ description: 'Shutting down: takes no new jobs.' }),
    started_at: z.iso.datetime(),
    last_heartbeat_at: z.iso.datetime(),
  })
  .meta({ id: 'LivekitInstanceStatus' });

export type InstanceStatus = z.infer<typeof instanceStatusSchema>;

export interface HeartbeatOptions {
  store: Store;
  logger: Logger;
  instanceId: string;
  /** The status to publish, read fresh on every beat. */
  snapshot: () => Omit<InstanceStatus, 'last_heartbeat_at'>;
  intervalMs?: number;
}

/** A heartbeat this many intervals old means the instance is gone. */
const staleAfterBeats = 4;

/**
 * Every Parley instance writes its status to Redis every `intervalMs` (2.5 s) with an expiry, and
 * indexes itself by time, so any instance can list them all (worker-status), LiveKit configured or
 * not. A stopped instance removes itself; a crashed one drops out when its heartbeat goes stale.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;

  constructor(private readonly o: HeartbeatOptions) {
    this.intervalMs = o.intervalMs ?? 2_500;
  }

  start(): void {
    if (this.timer !== undefined) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
  }

  async beat(): Promise<void> {
    const { store } = this.o;
    const now = Date.now();
    const status: InstanceStatus = { ...this.o.snapshot(), last_heartbeat_at: new Date(now).toISOString() };
    try {
      await store.livekit.beat(this.o.instanceId, JSON.stringify(status), now, this.intervalMs * staleAfterBeats);
    } catch (err) {
      this.o.logger.warn({ err }, 'could not write the instance heartbeat');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.o.store.livekit
      .removeInstance(this.o.instanceId)
      .catch((err: unknown) => this.o.logger.warn({ err }, 'could not remove the instance heartbeat'));
  }
}

/** Every instance with a live heartbeat, oldest first; stale index entries are pruned. */
export async function readInstances(store: Store, intervalMs = 2_500): Promise<InstanceStatus[]> {
  const values = await store.livekit.heartbeats(Date.now() - intervalMs * staleAfterBeats);
  return values.flatMap((value) => {
    const parsed = instanceStatusSchema.safeParse(JSON.parse(value));
    return parsed.success ? [parsed.data] : [];
  });
}
