import type { Context } from 'koa';
import type { AgentTestRunner } from '../../../agent-tests/test-runner.js';
import { testCaseBodySchema, testCaseSchema, testRunSchema } from '../../../schemas/agent-test.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import {
  agentIdParams,
  listRunsQuery,
  testCaseListSchema,
  testCaseParams,
  testRunBody,
  testRunPageSchema,
  testRunParams,
  testRunStarted,
} from './agent-tests.schema.js';

const tag = 'Agent tests';

/**
 * This server's own address as the request reached it: a run's calls connect there, so they take
 * the media path of this process even behind a proxy or PARLEY_PUBLIC_URL.
 */
function localOrigin(ctx: Context): string {
  const { localAddress, localPort } = ctx.req.socket;
  const host =
    localAddress === undefined ? '127.0.0.1' : localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return `http://${host}:${localPort ?? 80}`;
}

/** Test cases and test runs of an agent (issue 24): /admin/v1/agents/{id}/tests… */
export function agentTestRoutes(store: Store, runner: AgentTestRunner): RouteDef[] {
  const agentExists = (id: string) => store.agents.getStored(id); // 404 for an unknown agent
  return [
    defineRoute({
      method: 'get',
      path: '/agents/:id/tests',
      operationId: 'listAgentTestCases',
      summary: "List the agent's test cases, oldest first",
      tag,
      params: agentIdParams,
      errors: [404],
      responses: { 200: { description: 'Every test case of the agent', schema: testCaseListSchema } },
      handler: async (_ctx, { params }) => {
        await agentExists(params.id);
        return { body: { data: await store.agentTests.listCases(params.id) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/:id/tests',
      operationId: 'createAgentTestCase',
      summary: "Add a test case: the caller's lines and what the call must show",
      tag,
      params: agentIdParams,
      body: testCaseBodySchema,
      errors: [404, 409],
      responses: { 201: { description: 'The test case', schema: testCaseSchema } },
      handler: async (_ctx, { params, body }) => {
        await agentExists(params.id);
        return { status: 201, body: await store.agentTests.createCase(params.id, body) };
      },
    }),
    // Before /agents/:id/tests/:case_id, so `runs` is never read as a case id.
    defineRoute({
      method: 'post',
      path: '/agents/:id/tests/runs',
      operationId: 'startAgentTestRun',
      summary: "Play the agent's test cases (all, or those named) as voice calls; poll the run for results",
      tag,
      params: agentIdParams,
      body: testRunBody,
      errors: [404, 409, 503],
      responses: { 202: { description: 'The run, queued', schema: testRunStarted } },
      handler: async (ctx, { params, body }) => {
        const run = await runner.startRun(params.id, body.case_ids, localOrigin(ctx));
        return { status: 202, body: { run_id: run.id, status: run.status } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/tests/runs',
      operationId: 'listAgentTestRuns',
      summary: "List the agent's test runs with their results, newest first",
      tag,
      params: agentIdParams,
      query: listRunsQuery,
      errors: [404],
      responses: { 200: { description: 'A page of runs', schema: testRunPageSchema } },
      handler: async (_ctx, { params, query }) => {
        await agentExists(params.id);
        return { body: await store.agentTests.listRuns(params.id, query) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/tests/runs/:run_id',
      operationId: 'getAgentTestRun',
      summary: 'Get a test run: its status, and per case per expectation whether it passed',
      tag,
      params: testRunParams,
      errors: [404],
      responses: { 200: { description: 'The run', schema: testRunSchema } },
      handler: async (_ctx, { params }) => ({ body: await store.agentTests.getRun(params.id, params.run_id) }),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/tests/:case_id',
      operationId: 'getAgentTestCase',
      summary: 'Get a test case',
      tag,
      params: testCaseParams,
      errors: [404],
      responses: { 200: { description: 'The test case', schema: testCaseSchema } },
      handler: async (_ctx, { params }) => ({ body: await store.agentTests.getCase(params.id, params.case_id) }),
    }),
    defineRoute({
      method: 'put',
      path: '/agents/:id/tests/:case_id',
      operationId: 'replaceAgentTestCase',
      summary: 'Replace a test case (name, turns and expectations, whole)',
      tag,
      params: testCaseParams,
      body: testCaseBodySchema,
      errors: [404],
      responses: { 200: { description: 'The test case', schema: testCaseSchema } },
      handler: async (_ctx, { params, body }) => ({
        body: await store.agentTests.replaceCase(params.id, params.case_id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/:id/tests/:case_id',
      operationId: 'deleteAgentTestCase',
      summary: 'Delete a test case (runs that played it keep their results)',
      tag,
      params: testCaseParams,
      errors: [404],
      responses: { 204: { description: 'Deleted' } },
      handler: async (_ctx, { params }) => {
        await store.agentTests.deleteCase(params.id, params.case_id);
        return { status: 204 };
      },
    }),
  ];
}
