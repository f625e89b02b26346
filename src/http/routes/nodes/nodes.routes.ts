import { readInstances } from '../../../realtime/livekit/heartbeat.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { nodeListSchema, type NodeList } from './nodes.schema.js';

const tag = 'Nodes';

/** GET /admin/v1/nodes: every Parley process sharing this Redis, from the heartbeats each writes. */
export function nodeRoutes(store: Store): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/nodes',
      operationId: 'listNodes',
      summary: 'Every Parley process (node) on this Redis, from their heartbeats: sessions, load, where it listens',
      tag,
      responses: { 200: { description: 'Live nodes', schema: nodeListSchema } },
      handler: async () => ({ body: await listNodes(store) }),
    }),
  ];
}

async function listNodes(store: Store): Promise<NodeList> {
  // readInstances orders by last beat, which changes every 2.5 s: list the oldest process first, stably
  const instances = (await readInstances(store)).sort(
    (a, b) => a.started_at.localeCompare(b.started_at) || a.instance_id.localeCompare(b.instance_id),
  );
  const data = instances.map((i) => ({
    id: i.instance_id,
    server_id: i.server_id,
    host: i.host,
    pid: i.pid,
    version: i.version,
    http_url: i.http_url,
    started_at: i.started_at,
    last_heartbeat_at: i.last_heartbeat_at,
    sessions: i.sessions,
    load: i.load,
    capacity: i.capacity,
    draining: i.draining,
    livekit_state: i.livekit.state,
  }));
  return {
    data,
    totals: {
      nodes: data.length,
      servers: new Set(data.map((n) => n.server_id)).size,
      sessions: data.reduce((n, node) => n + node.sessions.total, 0),
      capacity: data.reduce((n, node) => n + node.capacity, 0),
    },
  };
}
