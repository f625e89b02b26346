/**
 * Agent tests through the real voice path (issue 24): test cases saved and validated, runs that
 * play flite speech over Parley's WebSocket media endpoint to the real Silero VAD and pocketsphinx,
 * a passthrough webhook (a real HTTP server) answering with words and call control, an enhanced
 * agent whose LLM (a local OpenAI-compatible server) calls a real HTTP tool, and the judge asked
 * through that same LLM. For each expectation kind, a case that meets it and one that does not.
 */
import { afterAll, beforeAll, describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import type { TestRun } from '../../src/schemas/agent-test.js';
import { createAgent } from '../support/agents.js';
import { HttpReceiver, type ReceivedRequest, type Reply } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest, type ToolCallsAnswer } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { runCli } from './agent-tests-cli.js';

let redis: TestRedis;
let webhook: HttpReceiver;
let tools: HttpReceiver;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let presetId: string;

/** The passthrough webhook's answer, by the path the agent's webhook_url names. */
function answerWebhook(req: ReceivedRequest): Reply {
  if (req.path === '/hangup')
    return { body: { response: 'Thanks for calling, goodbye.', action: { type: 'end_call' } } };
  if (req.path === '/transfer')
    return {
      body: { response: 'Connecting you to billing.', action: { type: 'transfer', to: 'sip:billing@pbx.example.com' } },
    };
  if (req.path === '/menu')
    return {
      body: {
        response:
          'Our menu has grilled fish, roast chicken with potatoes, three kinds of pasta, a garden salad, and a chocolate cake for dessert, and every dish can be made without gluten.',
      },
    };
  return { body: { response: 'Sure, your table is booked.' } };
}

/** The LLM: the judge says yes to questions about a table; the enhanced agent looks up order A-17. */
function answerLlm(req: ChatCompletionRequest): string | ToolCallsAnswer {
  const first = req.messages[0]?.content ?? '';
  if (first.startsWith('You check a recorded phone call')) {
    const asked = req.messages.at(-1)?.content ?? '';
    return /table/.test(asked.slice(asked.lastIndexOf('Question:'))) ? 'Yes.' : 'No.';
  }
  if (req.messages.some((m) => m.role === 'tool')) return 'Your order has shipped.';
  return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'A-17' } }] };
}

beforeAll(async () => {
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(answerWebhook);
  tools = await HttpReceiver.start(() => ({ body: { status: 'shipped' } }));
  llm = await startOpenAiServer(answerLlm);
  const p = await startParley(redis, llmEnv());
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'agent tests',
      stt: { provider: 'pocketsphinx', model: 'en-us', language: 'en-US' },
      llm: { provider: 'openai', model: 'test-model' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  expect(preset.status).toBe(201);
  presetId = preset.body.id as string;
  await p.close();
}, 60_000);

afterAll(async () => {
  await Promise.all([webhook?.close(), tools?.close(), llm?.close()]);
  await redis?.close();
});

const llmEnv = () => ({ OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test' });

/**
 * A Parley of the test's own on the file's Redis (the preset is there already), closed when the
 * test ends. A process plays its agent test runs one at a time, so tests that run side by side
 * each need one.
 */
async function ownParley(onTestFinished: (fn: OnTestFinishedHandler) => void): Promise<TestParley> {
  const own = await startParley(redis, llmEnv());
  onTestFinished(() => own.close());
  return own;
}

async function passthroughAgent(
  p: TestParley,
  path: string,
  name = `tests ${path}`,
  settings: Record<string, unknown> = {},
): Promise<string> {
  const agent = await createAgent(p, {
    name,
    mode: 'passthrough',
    webhook_url: `${webhook.url}${path}`,
    preset_id: presetId,
    greeting: null,
    ...settings,
  });
  return agent.id;
}

async function addCase(p: TestParley, agentId: string, body: Record<string, unknown>): Promise<string> {
  const res = await p.request('POST', `/admin/v1/agents/${agentId}/tests`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** Starts a run and waits for it to finish. */
async function run(p: TestParley, agentId: string, caseIds?: string[]): Promise<TestRun> {
  const started = await p.request('POST', `/admin/v1/agents/${agentId}/tests/runs`, {
    body: caseIds === undefined ? {} : { case_ids: caseIds },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.status).toBe('queued');
  for (let i = 0; i < 600; i++) {
    const res = await p.request('GET', `/admin/v1/agents/${agentId}/tests/runs/${started.body.run_id}`);
    if (['passed', 'failed', 'error'].includes(res.body.status)) return res.body as TestRun;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the run did not finish');
}

const passedOf = (r: TestRun, i: number) => r.results[i]!.expectations.map((e) => [e.type, e.passed]);

// The tests run side by side, each on a Parley of its own (ownParley): a run paces its caller at
// real time, so the file waits on speech far more than it works (one after another it took ~75 s).
describe.concurrent('agent test runs through the voice path', () => {
  it('phrase, pattern, wait and judge: a case meeting them passes, one missing them fails', async ({
    onTestFinished,
  }) => {
    const p = await ownParley(onTestFinished);
    const agentId = await passthroughAgent(p, '/booking');
    const good = await addCase(p, agentId, {
      name: 'books a table',
      turns: [{ say: 'i would like to book a table for four' }, { say: 'thank you very much', pause_ms: 300 }],
      expect: [
        { type: 'says', phrase: 'table is BOOKED', turn: 1 },
        { type: 'says', pattern: 'your \\w+ is booked' },
        { type: 'wait_under_ms', ms: 60_000 },
        { type: 'judge', question: 'Did the agent book the table?' },
      ],
    });
    const bad = await addCase(p, agentId, {
      name: 'expects what is not said',
      turns: [{ say: 'i would like to book a table for four' }],
      expect: [
        { type: 'says', phrase: 'cancelled' },
        { type: 'says', pattern: '^nope' },
        { type: 'says', phrase: 'booked', turn: 1 },
        { type: 'wait_under_ms', ms: 1 },
        { type: 'judge', question: 'Did the agent refuse?' },
      ],
    });
    const result = await run(p, agentId);
    expect(result.status).toBe('failed');
    expect(result.results.map((r) => [r.case_id, r.status])).toEqual([
      [good, 'passed'],
      [bad, 'failed'],
    ]);
    expect(passedOf(result, 0).every(([, passed]) => passed)).toBe(true);
    expect(passedOf(result, 1)).toEqual([
      ['says', false],
      ['says', false],
      ['says', true],
      ['wait_under_ms', false],
      ['judge', false],
    ]);
    const [first] = result.results;
    expect(first!.waits_ms).toHaveLength(2);
    expect(first!.waits_ms.every((w) => typeof w === 'number' && w > 0)).toBe(true);
    // The case's conversation is the session's, and the session is marked as a test's.
    const conversation = await p.request('GET', `/admin/v1/conversations/${first!.conversation_id}`);
    expect(conversation.body.session_id).toBe(first!.session_id);
    expect(conversation.body.messages.filter((m: { role: string }) => m.role === 'agent')).toHaveLength(2);
    const session = await p.request('GET', `/admin/v1/sessions/${first!.session_id}`);
    expect(session.body.metadata).toEqual({ agent_test_run_id: result.id, agent_test_case_id: good });
    expect(session.body.transport).toBe('websocket');
    const listed = await p.request('GET', `/admin/v1/agents/${agentId}/tests/runs`);
    expect(listed.body.data.map((r: TestRun) => r.id)).toEqual([result.id]);
  }, 180_000);

  it('a turn with interrupt_after_ms speaks over the answer: barge-in cuts it', async ({ onTestFinished }) => {
    const p = await ownParley(onTestFinished);
    // With a greeting: the caller waits for it to end before the first line.
    const agentId = await passthroughAgent(p, '/menu', 'menu', { greeting: 'Welcome to the diner.' });
    await addCase(p, agentId, {
      name: 'interrupts the menu',
      turns: [{ say: 'what is on the menu' }, { say: 'thank you that is enough', interrupt_after_ms: 1500 }],
      expect: [
        { type: 'says', pattern: 'grilled fish', turn: 1 },
        { type: 'says', phrase: 'welcome to the diner' },
      ],
    });
    const result = await run(p, agentId);
    expect(result.status).toBe('passed');
    const conversation = await p.request('GET', `/admin/v1/conversations/${result.results[0]!.conversation_id}`);
    const answers = conversation.body.messages.filter((m: { role: string }) => m.role === 'agent');
    expect(answers.map((m: { status: string }) => m.status)).toEqual(['complete', 'interrupted', 'complete']);
  }, 180_000);

  it('call_ended and transferred: met by the webhook that hangs up or hands over, not by the other', async ({
    onTestFinished,
  }) => {
    const p = await ownParley(onTestFinished);
    const hangup = await passthroughAgent(p, '/hangup');
    const transfer = await passthroughAgent(p, '/transfer');
    const turns = [{ say: 'that is all thank you' }];
    await addCase(p, hangup, { name: 'hangs up', turns, expect: [{ type: 'call_ended' }] });
    await addCase(p, hangup, { name: 'wrongly expects a transfer', turns, expect: [{ type: 'transferred' }] });
    await addCase(p, transfer, {
      name: 'hands over to billing',
      turns,
      expect: [{ type: 'transferred', to: 'sip:billing@pbx.example.com' }, { type: 'transferred' }],
    });
    await addCase(p, transfer, {
      name: 'wrong destination, or a hang-up',
      turns,
      expect: [{ type: 'transferred', to: 'sip:sales@pbx.example.com' }, { type: 'call_ended' }],
    });
    const ended = await run(p, hangup);
    expect(ended.results.map((r) => r.status)).toEqual(['passed', 'failed']);
    expect(ended.results[1]!.expectations[0]!.detail).toMatch(/agent_hangup/);
    const handed = await run(p, transfer);
    expect(handed.results.map((r) => r.status)).toEqual(['passed', 'failed']);
    expect(passedOf(handed, 1)).toEqual([
      ['transferred', false],
      ['call_ended', false],
    ]);
  }, 180_000);

  it('tool_called: the tool with matching arguments passes; other arguments or another tool fail', async ({
    onTestFinished,
  }) => {
    const p = await ownParley(onTestFinished);
    const agent = await createAgent(p, {
      name: 'tests tools',
      mode: 'enhanced',
      preset_id: presetId,
      greeting: null,
      tools: [
        {
          name: 'lookup_order',
          description: 'Look up an order.',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
          url: `${tools.url}/orders`,
        },
      ],
    });
    const turns = [{ say: 'where is my order' }];
    await addCase(p, agent.id, {
      name: 'looks up the order',
      turns,
      expect: [
        { type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'A-17' } },
        { type: 'tool_called', name: 'lookup_order' },
        { type: 'says', phrase: 'shipped' },
      ],
    });
    await addCase(p, agent.id, {
      name: 'wrong order, wrong tool',
      turns,
      expect: [
        { type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'B-2' } },
        { type: 'tool_called', name: 'cancel_order' },
      ],
    });
    const result = await run(p, agent.id);
    expect(result.results.map((r) => r.status)).toEqual(['passed', 'failed']);
    expect(passedOf(result, 1)).toEqual([
      ['tool_called', false],
      ['tool_called', false],
    ]);
    expect(result.results[1]!.expectations[0]!.detail).toContain('"order_id":"A-17"');
  }, 180_000);

  it('npm run agent-test: 0 when all pass, 1 when any fails, 2 for an unknown agent or no server', async ({
    onTestFinished,
  }) => {
    const p = await ownParley(onTestFinished);
    const agentId = await passthroughAgent(p, '/hangup', 'cli agent');
    const good = await addCase(p, agentId, {
      name: 'hangs up',
      turns: [{ say: 'goodbye' }],
      expect: [{ type: 'call_ended' }],
    });
    const bad = await addCase(p, agentId, {
      name: 'no',
      turns: [{ say: 'goodbye' }],
      expect: [{ type: 'transferred' }],
    });
    const env = {
      PARLEY_URL: p.url,
      PARLEY_ADMIN_API_KEY: 'test-admin-key-0123456789',
      PARLEY_AGENT_TEST_POLL_MS: '200',
    };
    const passed = await runCli(['cli agent', good], env);
    expect(passed.code, passed.output).toBe(0);
    expect(passed.output).toMatch(/PASS hangs up/);
    const failed = await runCli([agentId, bad], env);
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toMatch(/FAIL transferred: not transferred/);
    expect((await runCli(['no such agent'], env)).code).toBe(2);
    expect((await runCli([agentId], { ...env, PARLEY_URL: 'http://127.0.0.1:9' })).code).toBe(2);
  }, 180_000);
});
