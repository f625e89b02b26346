import type { Config } from '../../../config/config.js';
import { AppError } from '../../../errors/app-errors.js';
import { clientUrl } from '../../../realtime/livekit/tokens.js';
import type { LivekitPlane } from '../../../realtime/livekit/livekit-plane.js';
import { listRooms, workerStatus } from '../../../realtime/livekit/room-listing.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { dispatchBody, dispatchResponse, livekitRoomListSchema, workerStatusSchema } from './livekit.schema.js';

const tag = 'LiveKit';

/** SPEC §4.2's real-time endpoints under the integration's name: /admin/v1/livekit/… */
export function livekitRoutes(store: Store, livekit: LivekitPlane, config: Config): RouteDef[] {
  const api = () => {
    if (livekit.api === undefined)
      throw new AppError(
        503,
        'livekit_unavailable',
        'LiveKit is not configured on this server (set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET)',
      );
    return livekit.api;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/livekit/rooms',
      operationId: 'listLivekitRooms',
      summary:
        "LiveKit's active rooms, joined with Parley's sessions (session, agent, participants, started, duration)",
      tag,
      errors: [502, 503],
      responses: { 200: { description: 'Active rooms', schema: livekitRoomListSchema } },
      handler: async () => ({ body: { data: await listRooms(api(), store) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/livekit/worker-status',
      operationId: 'getLivekitWorkerStatus',
      summary: 'Every Parley instance as a LiveKit agent worker (from Redis heartbeats); answers without LiveKit too',
      tag,
      responses: { 200: { description: 'Worker status', schema: workerStatusSchema } },
      handler: async () => ({
        body: await workerStatus(store, {
          configured: livekit.configured,
          url: config.livekit.url === undefined ? null : clientUrl(config.livekit.url),
          agentName: config.livekit.agentName,
        }),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/livekit/dispatch',
      operationId: 'dispatchLivekitAgent',
      summary: 'Dispatch a Parley agent to a LiveKit room (AgentDispatch API); a Parley worker joins it',
      tag,
      body: dispatchBody,
      errors: [404, 502, 503],
      responses: { 201: { description: 'The dispatch', schema: dispatchResponse } },
      handler: async (_ctx, { body }) => {
        const client = api();
        const agent = await store.agents.get(body.agent_id); // 404 for an unknown agent
        const metadata = { ...body.metadata, agent_id: agent.id };
        const dispatch = await client.dispatch(body.room, metadata);
        return {
          status: 201,
          body: {
            dispatch_id: dispatch.id,
            room: dispatch.room || body.room,
            agent_name: client.agentName,
            agent_id: agent.id,
            metadata,
          },
        };
      },
    }),
  ];
}
