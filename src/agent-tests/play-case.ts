import type { Logger } from 'pino';
import type { PipelineSettingsOf } from '../agents/pipeline-settings.js';
import type { LlmProvider } from '../providers/llm.js';
import type { TokenBucket } from '../ratelimit/token-bucket.js';
import type { VoiceSessions } from '../realtime/session-grants.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { CaseResult, ExpectationResult, TestCase, TestRun } from '../schemas/agent-test.js';
import type { StoredPreset } from '../schemas/preset.js';
import type { Session } from '../schemas/session.js';
import type { Store } from '../store/store.js';
import { speakLine, type CallerVoice } from './caller-speech.js';
import { evaluate, transcriptOf, type CallOutcome } from './expectations.js';
import { judge } from './judge.js';
import { playCall, type TestCallTimings } from './test-call.js';

export interface CaseDeps {
  store: Store;
  voice: VoiceSessions;
  /** The agent's SDK token bucket: each test session takes a token, as an SDK session would. */
  rateLimit: TokenBucket;
  settings: Pick<PipelineSettingsOf, 'of'>;
  llmFor: (llm: StoredPreset['llm']) => LlmProvider;
  llmTimeoutMs: number;
  callerVoice: CallerVoice;
  logger: Logger;
  timings: TestCallTimings;
}

/** Longest a case waits for a token of the agent's rate limit before it is an error. */
const rateLimitWaitMs = 60_000;
/** Longest the session's records may take to show its end after the call. */
const recordsWaitMs = 5_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One case: its lines synthesized, a new voice session of the agent (metadata
 * `agent_test_run_id`, `agent_test_case_id`), the call played over the media endpoint at
 * `mediaOrigin`, then every expectation checked against what the caller heard and what Parley
 * recorded. A case that cannot be played is `error` with the reason; it never throws.
 */
export async function playCase(
  deps: CaseDeps,
  agent: StoredAgent,
  run: TestRun,
  testCase: TestCase,
  mediaOrigin: string,
): Promise<CaseResult> {
  const result: CaseResult = {
    case_id: testCase.id,
    name: testCase.name,
    status: 'error',
    session_id: null,
    conversation_id: null,
    error: null,
    waits_ms: [],
    expectations: [],
  };
  try {
    const lines = await Promise.all(testCase.turns.map((t) => speakLine(deps.callerVoice, t.say)));
    await takeToken(deps.rateLimit, agent.id);
    const grant = await deps.voice.open(
      agent,
      {
        transport: 'websocket',
        user_id: `agent-test:${run.id}`,
        metadata: { agent_test_run_id: run.id, agent_test_case_id: testCase.id },
      },
      mediaOrigin,
    );
    result.session_id = grant.session_id;
    // The media endpoint of this very process, whatever PARLEY_PUBLIC_URL says clients use.
    const url = new URL(grant.connection_url);
    const local = new URL(mediaOrigin);
    url.protocol = local.protocol === 'https:' ? 'wss:' : 'ws:';
    url.host = local.host;
    const heard = await playCall(
      { ...grant, connection_url: url.toString() },
      testCase.turns,
      lines,
      deps.timings,
      agent.greeting !== null && agent.greeting.trim() !== '',
    );
    const session = await endedSession(deps.store, grant.session_id);
    result.conversation_id = session.conversation_id;
    const conversation = await deps.store.conversations.getWithMessages(session.conversation_id);
    const outcome: CallOutcome = { heard, messages: conversation.messages, sessionEndReason: session.end_reason };
    result.waits_ms = heard.waitsMs;
    result.expectations = await checkAll(deps, agent, testCase, outcome);
    result.status = result.expectations.every((e) => e.passed) ? 'passed' : 'failed';
  } catch (err) {
    deps.logger.warn({ err, run_id: run.id, case_id: testCase.id }, 'agent test case could not be played');
    result.error = (err as Error).message;
  }
  return result;
}

async function checkAll(
  deps: CaseDeps,
  agent: StoredAgent,
  testCase: TestCase,
  outcome: CallOutcome,
): Promise<ExpectationResult[]> {
  const results: ExpectationResult[] = [];
  for (const expectation of testCase.expect) {
    if (expectation.type !== 'judge') {
      results.push(evaluate(expectation, outcome));
      continue;
    }
    const { llm } = await deps.settings.of(agent);
    const model = { llm, provider: deps.llmFor(llm), timeoutMs: deps.llmTimeoutMs };
    results.push(await judge(model, expectation.question, transcriptOf(outcome)));
  }
  return results;
}

async function takeToken(rateLimit: TokenBucket, agentId: string): Promise<void> {
  const deadline = Date.now() + rateLimitWaitMs;
  for (;;) {
    const decision = await rateLimit.take(`agent:${agentId}`);
    if (decision.allowed) return;
    if (Date.now() + decision.retryAfterS * 1000 > deadline)
      throw new Error("the agent's SDK rate limit left no room for a test session within 60 s");
    await sleep(decision.retryAfterS * 1000);
  }
}

/** The session once its end is recorded (the call has hung up; the records follow it closely). */
async function endedSession(store: Store, sessionId: string): Promise<Session> {
  const deadline = Date.now() + recordsWaitMs;
  for (;;) {
    const session = await store.sessions.get(sessionId);
    if (session.status === 'ended' || Date.now() > deadline) return session;
    await sleep(50);
  }
}
