import { z } from 'zod';
import { isObject, timestampSchema } from './common.js';

/**
 * Agent tests (issue 24): an operator's scripted caller for one agent, played as speech through the
 * real voice path, and the expectations its conversation must meet. These schemas validate test
 * cases on save, describe them in /openapi.json and type the stored records.
 */

/** Most turns of one test case, and most expectations. */
export const maxTestTurns = 20;
export const maxTestExpectations = 30;
/** Most test cases per agent. */
export const maxTestCases = 100;

/** A regular expression source that compiles (JavaScript syntax, matched case-insensitively). */
const regexSource = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (source) => {
      try {
        new RegExp(source, 'i');
        return true;
      } catch {
        return false; // the refinement's own message says what is wrong
      }
    },
    { message: 'not a valid regular expression (JavaScript syntax)' },
  );

export const testTurnSchema = z
  .strictObject({
    say: z.string().trim().min(1).max(1000).meta({ description: "The caller's words, spoken with flite." }),
    pause_ms: z.number().int().min(0).max(30_000).optional().meta({
      description: "Silence before these words, after the agent's previous answer ended. Default 500.",
    }),
    interrupt_after_ms: z.number().int().min(0).max(60_000).optional().meta({
      description:
        "Speak over the agent's previous answer: start these words this long after its first audio, without waiting for it to end.",
    }),
  })
  .meta({ id: 'AgentTestTurn' });

const says = z.strictObject({
  type: z.literal('says'),
  phrase: z.string().trim().min(1).max(500).optional().meta({ description: 'Found in the answer, ignoring case.' }),
  pattern: regexSource.optional().meta({ description: 'A regular expression the answer matches (case-insensitive).' }),
  turn: z.number().int().min(1).max(maxTestTurns).optional().meta({
    description: "Only the agent's answer to this turn (1-based); default any answer of the call.",
  }),
});
const toolCalled = z.strictObject({
  type: z.literal('tool_called'),
  name: z.string().min(1).max(64),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'Each of these fields has this value in the call (a subset match).' }),
});
const callEnded = z.strictObject({ type: z.literal('call_ended') });
const transferred = z.strictObject({
  type: z.literal('transferred'),
  to: z.string().min(1).max(300).optional().meta({ description: 'The destination, exactly.' }),
});
const waitUnder = z.strictObject({
  type: z.literal('wait_under_ms'),
  ms: z.number().int().min(1).max(120_000).meta({
    description: "The caller's longest wait, over the turns: from the end of their speech to the agent's first audio.",
  }),
});
const judge = z.strictObject({
  type: z.literal('judge'),
  question: z.string().trim().min(1).max(1000).meta({
    description: "A yes/no question about the transcript, answered by the agent's own LLM: yes passes.",
  }),
});

export const testExpectationSchema = z
  .discriminatedUnion('type', [says, toolCalled, callEnded, transferred, waitUnder, judge])
  .superRefine((e, ctx) => {
    if (e.type !== 'says') return;
    if (e.phrase === undefined && e.pattern === undefined)
      ctx.addIssue({ code: 'custom', path: ['phrase'], message: 'give phrase or pattern' });
  })
  .meta({ id: 'AgentTestExpectation' });

export type TestExpectation = z.infer<typeof testExpectationSchema>;
export type TestExpectationType = TestExpectation['type'];
export type TestTurn = z.infer<typeof testTurnSchema>;

export const testCaseBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    turns: z.array(testTurnSchema).min(1).max(maxTestTurns),
    expect: z.array(testExpectationSchema).min(1).max(maxTestExpectations),
  })
  // Runs even when other fields failed (read as unknown), so one 400 names every problem.
  .superRefine(crossFieldProblems, { when: (payload) => isObject(payload.value) })
  .meta({ id: 'AgentTestCaseRequest' });

export type TestCaseBody = z.infer<typeof testCaseBodySchema>;

/** A `says` turn past the case's turns; an interruption on the first turn, which has no answer to interrupt. */
function crossFieldProblems(value: unknown, ctx: z.RefinementCtx): void {
  const c = value as { turns?: unknown; expect?: unknown };
  const turns = Array.isArray(c.turns) ? (c.turns as unknown[]) : null;
  if (turns !== null && Array.isArray(c.expect)) {
    (c.expect as unknown[]).forEach((e, i) => {
      const turn = isObject(e) && e['type'] === 'says' ? e['turn'] : undefined;
      if (typeof turn === 'number' && turn > turns.length)
        ctx.addIssue({ code: 'custom', path: ['expect', i, 'turn'], message: `the case has ${turns.length} turn(s)` });
    });
  }
  const first = turns?.[0];
  if (isObject(first) && first['interrupt_after_ms'] !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['turns', 0, 'interrupt_after_ms'],
      message: 'the first turn has no answer to interrupt',
    });
}

export const testCaseSchema = z
  .object({
    id: z.string().meta({ example: 'tst_01jd3n6v8m0000000000000000' }),
    agent_id: z.string(),
    name: z.string(),
    turns: z.array(testTurnSchema),
    expect: z.array(testExpectationSchema),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'AgentTestCase' });

export type TestCase = z.infer<typeof testCaseSchema>;

export const testRunStatuses = ['queued', 'running', 'passed', 'failed', 'error'] as const;
export type TestRunStatus = (typeof testRunStatuses)[number];

export const expectationResultSchema = z
  .object({
    type: z.string(),
    passed: z.boolean(),
    detail: z.string().meta({ description: 'What was found, in words.' }),
  })
  .meta({ id: 'AgentTestExpectationResult' });

export type ExpectationResult = z.infer<typeof expectationResultSchema>;

export const caseResultSchema = z
  .object({
    case_id: z.string(),
    name: z.string(),
    status: z.enum(['passed', 'failed', 'error']),
    session_id: z.string().nullable(),
    conversation_id: z.string().nullable().meta({ description: 'The conversation the call produced.' }),
    error: z.string().nullable().meta({ description: 'Why the case could not be played (status `error`).' }),
    waits_ms: z.array(z.number().int().nullable()).meta({
      description: "Per turn, the caller's wait (end of speech → first agent audio); null when no answer came.",
    }),
    expectations: z.array(expectationResultSchema),
  })
  .meta({ id: 'AgentTestCaseResult' });

export type CaseResult = z.infer<typeof caseResultSchema>;

export const testRunSchema = z
  .object({
    id: z.string().meta({ example: 'trn_01jd3n6v8m0000000000000000' }),
    agent_id: z.string(),
    status: z.enum(testRunStatuses).meta({
      description:
        '`queued`, `running`, then `passed` (every expectation of every case), `failed` (any not met) or `error` (a case could not be played, or the run was cut by a shutdown).',
    }),
    case_ids: z.array(z.string()),
    results: z.array(caseResultSchema).meta({ description: 'One per case played so far, in order.' }),
    error: z.string().nullable(),
    created_at: timestampSchema,
    started_at: timestampSchema.nullable(),
    finished_at: timestampSchema.nullable(),
  })
  .meta({ id: 'AgentTestRun' });

export type TestRun = z.infer<typeof testRunSchema>;
