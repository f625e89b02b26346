import { agentCreateSchema, agentPatchSchema, agentStatsSchema, type Agent } from '../../../schemas/agent.js';
import { AgentReadiness } from '../../../agents/readiness.js';
import type { ProviderDemand } from '../../../agents/provider-demand.js';
import { pageSchema } from '../../../schemas/common.js';
import { deleteAgent } from '../../../agents/delete-agent.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { agentSessionsQuery, sessionPageSchema } from '../sessions/sessions.schema.js';
import { agentIdParams, agentViewSchema, listAgentsQuery } from './agents.schema.js';
import type { RagService } from '../../../rag/rag-service.js';
import { toolUrlProblems } from '../../../schemas/tool-settings.js';
import type { TurnRecorder } from '../../../session-writes/turn-recorder.js';

const tag = 'Agents';

/**
 * Every agent answer carries its `readiness` and `warnings` (why it cannot serve here).
 * `rag` hears of preset changes, which may change the agent's embedding model; `recorder` ends a
 * deleted agent's sessions (with their `session_end` events); `tools.allowHttp`
 * (PARLEY_ALLOW_HTTP_TOOLS) decides which tool URLs are accepted.
 */
export function agentRoutes(
  store: Store,
  rag: Pick<RagService, 'embeddingsChanged'>,
  recorder: Pick<TurnRecorder, 'ended'>,
  readiness: AgentReadiness,
  demand: Pick<ProviderDemand, 'forget'>,
  tools: { allowHttp: boolean } = { allowHttp: false },
): RouteDef[] {
  const view = async (agent: Agent) => {
    const ready = await readiness.of(agent);
    return { ...agent, readiness: ready, warnings: AgentReadiness.warnings(ready) };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/agents',
      operationId: 'listAgents',
      summary: 'List agents, newest first',
      tag,
      query: listAgentsQuery,
      responses: { 200: { description: 'A page of agents', schema: pageSchema(agentViewSchema, 'AgentPage') } },
      handler: async (_ctx, { query }) => {
        const { limit, cursor, from, to, ...filter } = query;
        const page = await store.agents.list({ limit, cursor, from, to }, filter);
        return { body: { ...page, data: await Promise.all(page.data.map(view)) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents',
      operationId: 'createAgent',
      summary: 'Create an agent (its token is in the response)',
      tag,
      body: agentCreateSchema,
      bodyProblems: (sent) => toolUrlProblems(sent, tools.allowHttp),
      responses: {
        201: { description: 'The new agent, with its readiness and warnings', schema: agentViewSchema },
      },
      handler: async (ctx, { body }) => {
        const agent = await store.agents.create(body);
        demand.forget();
        ctx.set('Location', `/admin/v1/agents/${agent.id}`);
        return { status: 201, body: await view(agent) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id',
      operationId: 'getAgent',
      summary: 'Get an agent',
      tag,
      params: agentIdParams,
      errors: [404],
      responses: { 200: { description: 'The agent, with its readiness', schema: agentViewSchema } },
      handler: async (_ctx, { params }) => ({ body: await view(await store.agents.get(params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/agents/:id',
      operationId: 'updateAgent',
      summary: 'Change some settings of an agent; fields left out keep their values',
      tag,
      params: agentIdParams,
      body: agentPatchSchema,
      bodyProblems: (sent) => toolUrlProblems(sent, tools.allowHttp),
      errors: [404, 409],
      responses: {
        200: { description: 'The updated agent, with its readiness and warnings', schema: agentViewSchema },
      },
      handler: async (_ctx, { params, body }) => {
        const agent = await store.agents.update(params.id, body);
        demand.forget();
        if (body.preset_id !== undefined) rag.embeddingsChanged({ agentId: agent.id });
        return { body: await view(agent) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/:id',
      operationId: 'deleteAgent',
      summary:
        'Delete an agent: its token stops working at once, its documents are deleted, its active sessions end (agent_deleted, with session_end events); sessions, conversations and errors stay as history',
      tag,
      params: agentIdParams,
      errors: [404, 409],
      responses: { 204: { description: 'Deleted' } },
      handler: async (_ctx, { params }) => {
        await deleteAgent({ store, recorder }, params.id);
        demand.forget();
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/:id/regenerate-token',
      operationId: 'regenerateAgentToken',
      summary: 'Issue a new agent token; the old one stops working at once',
      tag,
      params: agentIdParams,
      errors: [404, 409],
      responses: { 200: { description: 'The agent with its new token', schema: agentViewSchema } },
      handler: async (_ctx, { params }) => ({ body: await view(await store.agents.regenerateToken(params.id)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/stats',
      operationId: 'getAgentStats',
      summary: 'Counters for an agent: sessions, messages, turns, errors, mean response time',
      tag,
      params: agentIdParams,
      errors: [404],
      responses: { 200: { description: 'Statistics', schema: agentStatsSchema } },
      handler: async (_ctx, { params }) => ({ body: await store.agents.stats(params.id) }),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/sessions',
      operationId: 'listAgentSessions',
      summary: 'Sessions of an agent, newest first (same filters as GET /sessions)',
      tag,
      params: agentIdParams,
      query: agentSessionsQuery,
      errors: [404],
      responses: { 200: { description: 'A page of sessions', schema: sessionPageSchema } },
      handler: async (_ctx, { params, query }) => {
        await store.agents.get(params.id);
        const { limit, cursor, from, to, ...filter } = query;
        return { body: await store.sessions.list({ limit, cursor, from, to }, { ...filter, agent_id: params.id }) };
      },
    }),
  ];
}
