import { z } from 'zod';
import { testCaseSchema, testRunSchema } from '../../../schemas/agent-test.js';
import { pageSchema } from '../../../schemas/common.js';
import { idParam } from '../common.schema.js';

export const agentIdParams = idParam('agent');

export const testCaseParams = agentIdParams.extend({ case_id: idParam('agent_test', 'case_id').shape.case_id });

export const testRunParams = agentIdParams.extend({ run_id: idParam('test_run', 'run_id').shape.run_id });

export const testCaseListSchema = z
  .object({ data: z.array(testCaseSchema).meta({ description: 'Oldest first.' }) })
  .meta({ id: 'AgentTestCaseList' });

export const testRunBody = z
  .strictObject({
    case_ids: z
      .array(idParam('agent_test', 'case_id').shape.case_id)
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'The cases to play, in this order; default every case of the agent, oldest first.' }),
  })
  .meta({ id: 'AgentTestRunRequest' });

export const testRunStarted = z
  .object({ run_id: z.string(), status: testRunSchema.shape.status })
  .meta({ id: 'AgentTestRunStarted' });

export const testRunPageSchema = pageSchema(testRunSchema, 'AgentTestRunPage');

export const listRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});
