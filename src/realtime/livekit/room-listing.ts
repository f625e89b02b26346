import type { Room } from '@livekit/protocol';
import { nullIfNotFound } from '../../errors/app-errors.js';
import { isId } from '../../ids/id-format.js';
import type { Session } from '../../schemas/session.js';
import type { RoomLink } from '../../store/repositories/livekit.js';
import type { Store } from '../../store/store.js';
import type { LivekitApi } from './api.js';
import { readInstances, type InstanceStatus } from './heartbeat.js';

export interface RoomEntry {
  name: string;
  sid: string;
  num_participants: number;
  num_publishers: number;
  created_at: string;
  duration_ms: number;
  metadata: string;
  session: {
    id: string;
    agent_id: string;
    status: Session['status'];
    user_id: string | null;
    started_at: string;
    duration_ms: number;
    turns: number;
  } | null;
  job: { job_id: string; worker_id: string | null; instance_id: string } | null;
}

const sdkRoom = /^parley-(ses_[0-9a-z]{26})$/;

/**
 * LiveKit's rooms joined with Parley's records: the room link a running job wrote (any room name),
 * else the SDK's room naming (`parley-<session_id>`).
 */
export async function listRooms(api: LivekitApi, store: Store, now = Date.now()): Promise<RoomEntry[]> {
  const rooms = await api.listRooms();
  const links = await store.livekit.roomLinks(rooms.map((r) => r.name));
  return Promise.all(rooms.map((room, i) => entry(room, links[i] ?? {}, store, now)));
}

async function entry(room: Room, link: Partial<RoomLink>, store: Store, now: number): Promise<RoomEntry> {
  const createdMs = Number(room.creationTimeMs) || Number(room.creationTime) * 1000;
  const sessionId = link.session_id ?? sdkRoom.exec(room.name)?.[1];
  const session =
    sessionId !== undefined && isId('session', sessionId)
      ? await store.sessions.get(sessionId).catch(nullIfNotFound)
      : null;
  return {
    name: room.name,
    sid: room.sid,
    num_participants: room.numParticipants,
    num_publishers: room.numPublishers,
    created_at: new Date(createdMs).toISOString(),
    duration_ms: Math.max(0, now - createdMs),
    metadata: room.metadata,
    session:
      session === null
        ? null
        : {
            id: session.id,
            agent_id: session.agent_id,
            status: session.status,
            user_id: session.user_id,
            started_at: session.started_at,
            duration_ms: session.duration_ms ?? Math.max(0, now - Date.parse(session.started_at)),
            turns: session.turns,
          },
    job:
      link.job_id === undefined
        ? null
        : { job_id: link.job_id, worker_id: link.worker_id || null, instance_id: link.instance_id ?? '' },
  };
}

/** worker-status: every instance's heartbeat, with totals; answers whether or not LiveKit is configured. */
export async function workerStatus(
  store: Store,
  here: { configured: boolean; url: string | null; agentName: string },
): Promise<{
  livekit: { configured: boolean; url: string | null; agent_name: string; message: string };
  instances: InstanceStatus[];
  totals: { instances: number; registered: number; sessions: number; capacity: number };
}> {
  const instances = await readInstances(store);
  const registered = instances.filter((i) => i.livekit.registered).length;
  const message = here.configured
    ? `${registered} of ${instances.length} instance(s) registered with LiveKit as agent "${here.agentName}"`
    : 'LiveKit is not configured on this instance (set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET); voice runs over the WebSocket transport only';
  return {
    livekit: { configured: here.configured, url: here.url, agent_name: here.agentName, message },
    instances,
    totals: {
      instances: instances.length,
      registered,
      sessions: instances.reduce((n, i) => n + i.sessions.total, 0),
      capacity: instances.reduce((n, i) => n + i.capacity, 0),
    },
  };
}
