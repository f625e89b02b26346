import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpReceiver } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest } from '../support/openai-server.js';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import type { Reply } from '../support/http-receiver.js';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';

/** POST /sdk/v1/chat in enhanced mode: Parley's own LLM (an OpenAI-compatible server) answers. */

type Llm = Awaited<ReturnType<typeof startOpenAiServer>>;
type Answer = (req: ChatCompletionRequest, index: number) => string | Reply;

let redis: TestRedis;
let llm: Llm;
let webhook: HttpReceiver;
let p: TestParley;
let answer: Answer;

const echo: Answer = (req) => `echo: ${req.messages.at(-1)?.content ?? ''}`;

function enhancedAgent(settings: Record<string, unknown> = {}, on: TestParley = p): Promise<Agent> {
  return createAgent(on, { name: 'Enhanced', mode: 'enhanced', ...settings });
}

function llmEnv(): Record<string, string> {
  return {
    PARLEY_RATE_LIMIT_BURST: '10000',
    PARLEY_RATE_LIMIT_RPM: '100000',
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: 'sk-test-parley',
    PARLEY_LLM_HISTORY_MESSAGES: '2',
  };
}

beforeAll(async () => {
  redis = await TestRedis.start();
  llm = await startOpenAiServer((req, i) => answer(req, i));
  webhook = await HttpReceiver.start(() => ({ body: { response: 'from the webhook' } }));
  p = await startParley(redis, llmEnv());
});
afterAll(async () => {
  await p?.close();
  await llm?.close();
  await webhook?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  llm.requests.length = 0;
  webhook.requests.length = 0;
  answer = echo;
});

async function createPreset(llmSettings: Record<string, unknown>): Promise<string> {
  const res = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'Bench LLM', llm: { provider: 'openai', ...llmSettings } },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

function chat(body: Record<string, unknown>, on: TestParley = p): Promise<TestResponse> {
  return on.request('POST', '/sdk/v1/chat', { body, apiKey: null });
}

function completions(): ChatCompletionRequest[] {
  return llm.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.json as ChatCompletionRequest);
}

describe('the LLM request', () => {
  it("uses the preset's model, temperature and max_tokens; system prompt first, the user's message last", async () => {
    const presetId = await createPreset({ model: 'parley-test-model', temperature: 0.25, max_tokens: 77 });
    const agent = await enhancedAgent({
      preset_id: presetId,
      system_prompt: 'You are Bob, a bicycle mechanic.',
      webhook_url: webhook.url,
    });
    const res = await chat({ agent_token: agent.agent_token, message: 'My chain skips.', user_id: 'rider' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      session_id: expect.stringMatching(/^ses_/),
      response: 'echo: My chain skips.',
      mode: 'enhanced',
    });

    const [request, ...more] = completions();
    expect(more).toEqual([]);
    expect(request).toMatchObject({ model: 'parley-test-model', temperature: 0.25, max_tokens: 77 });
    expect(request!.stream ?? false).toBe(false);
    expect(request!.messages).toEqual([
      { role: 'system', content: 'You are Bob, a bicycle mechanic.' },
      { role: 'user', content: 'My chain skips.' },
    ]);
    const http = llm.requests.find((r) => r.path.endsWith('/chat/completions'))!;
    expect(http.headers['authorization']).toBe('Bearer sk-test-parley');
    // Enhanced mode never calls the webhook, even when one is configured.
    expect(webhook.requests).toHaveLength(0);
  });

  it('without a preset the built-in default model is used', async () => {
    const agent = await enhancedAgent();
    const res = await chat({ agent_token: agent.agent_token, message: 'hi' });
    expect(res.status).toBe(200);
    expect(completions()[0]).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.7, max_tokens: 512 });
  });

  it('a preset change applies to the next message', async () => {
    const presetId = await createPreset({ model: 'model-a' });
    const agent = await enhancedAgent({ preset_id: presetId });
    const first = await chat({ agent_token: agent.agent_token, message: 'one' });
    const patched = await p.request('PATCH', `/admin/v1/presets/${presetId}`, {
      body: { llm: { provider: 'openai', model: 'model-b', temperature: 1.5, max_tokens: 9 } },
    });
    expect(patched.status).toBe(200);
    await chat({ agent_token: agent.agent_token, message: 'two', session_id: first.body.session_id });
    expect(completions().map((c) => [c.model, c.temperature, c.max_tokens])).toEqual([
      ['model-a', 0.7, 512],
      ['model-b', 1.5, 9],
    ]);
  });

  it('history is bounded by PARLEY_LLM_HISTORY_MESSAGES (2): the last two earlier messages, then the new one', async () => {
    const agent = await enhancedAgent({ system_prompt: 'Be brief.' });
    const first = await chat({ agent_token: agent.agent_token, message: 'one' });
    const sessionId = first.body.session_id as string;
    const second = await chat({ agent_token: agent.agent_token, message: 'two', session_id: sessionId });
    expect(second.body.response).toBe('echo: two');
    expect(completions()[1]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one' },
      { role: 'user', content: 'two' },
    ]);
    await chat({ agent_token: agent.agent_token, message: 'three', session_id: sessionId });
    expect(completions()[2]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'echo: two' },
      { role: 'user', content: 'three' },
    ]);
  });

  it('a repeated message is still sent as the new turn after its earlier copy', async () => {
    const agent = await enhancedAgent({ system_prompt: 'S' });
    const first = await chat({ agent_token: agent.agent_token, message: 'again' });
    answer = () => 'second answer';
    await chat({ agent_token: agent.agent_token, message: 'again', session_id: first.body.session_id });
    expect(completions()[1]!.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'echo: again' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('stores the answer with its timings and counts the turn', async () => {
    const agent = await enhancedAgent();
    const res = await chat({ agent_token: agent.agent_token, message: 'time me' });
    const session = (await p.request('GET', `/admin/v1/sessions/${res.body.session_id}`)).body;
    expect(session.turns).toBe(1);
    const conversation = (await p.request('GET', `/admin/v1/conversations/${session.conversation_id}`)).body;
    expect(conversation.messages.map((m: { role: string; text: string }) => [m.role, m.text])).toEqual([
      ['user', 'time me'],
      ['agent', 'echo: time me'],
    ]);
    expect(conversation.messages[1].timings).toEqual({ response_ms: expect.any(Number), llm_ms: expect.any(Number) });
  });
});

describe('LLM failures → 502 upstream_error with an error record', () => {
  async function expectLlmFailure(
    on: TestParley,
    expected: { type: string; status_code: number | null; minLatencyMs?: number },
  ): Promise<void> {
    const agent = await enhancedAgent({}, on);
    const res = await chat({ agent_token: agent.agent_token, message: 'fail please' }, on);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({
      code: 'upstream_error',
      message: 'the language model did not answer',
      request_id: expect.any(String),
    });
    const { error_id: errorId, session_id: sessionId } = res.body.error.details as {
      error_id: string;
      session_id: string;
    };
    expect(errorId).toMatch(/^err_/);
    const record = await on.request('GET', `/admin/v1/errors/${errorId}`);
    expect(record.body).toMatchObject({
      type: expected.type,
      agent_id: agent.id,
      session_id: sessionId,
      status_code: expected.status_code,
      status: 'open',
    });
    expect(record.body.latency_ms).toBeGreaterThanOrEqual(expected.minLatencyMs ?? 0);
    const listed = await on.request('GET', `/admin/v1/errors?type=${expected.type}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(errorId);
    const stats = await on.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(stats.body).toMatchObject({ turns: 0, errors: { total: 1, open: 1 } });
    // Its first message unanswered, the session failed: it ended (`error`), it is not live.
    const session = await on.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'error' });
  }

  it('the LLM server answers 500', async () => {
    answer = () => ({ status: 500, body: { error: { message: 'the GPU caught fire', type: 'server_error' } } });
    await expectLlmFailure(p, { type: 'llm_error', status_code: 500 });
  });

  it('the LLM server answers 429', async () => {
    answer = () => ({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit' } } });
    await expectLlmFailure(p, { type: 'llm_error', status_code: 429 });
  });

  it('the LLM returns no text', async () => {
    answer = () => ({ body: { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [] } });
    await expectLlmFailure(p, { type: 'llm_error', status_code: null });
  });

  it('the LLM does not answer within PARLEY_LLM_TIMEOUT_MS', async () => {
    const impatient = await startParley(redis, { ...llmEnv(), PARLEY_LLM_TIMEOUT_MS: '300' });
    try {
      answer = (req) => ({
        delayMs: 3_000,
        body: {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: req.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'late' }, finish_reason: 'stop' }],
        },
      });
      await expectLlmFailure(impatient, { type: 'llm_timeout', status_code: null, minLatencyMs: 250 });
    } finally {
      await impatient.close();
    }
  });

  it('an LLM server nobody listens at (127.0.0.1:9): a generic 502, the detail in the error record', async () => {
    const unreachable = await startParley(redis, { ...llmEnv(), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    try {
      await expectLlmFailure(unreachable, { type: 'llm_error', status_code: null });
      const [record] = (await unreachable.request('GET', '/admin/v1/errors?type=llm_error')).body.data;
      expect(record.message).toMatch(/language model call failed/);
    } finally {
      await unreachable.close();
    }
  });

  it('after a failure the conversation goes on, and the failed answer is not sent as history', async () => {
    const agent = await enhancedAgent({ system_prompt: 'S' });
    const first = await chat({ agent_token: agent.agent_token, message: 'one' });
    expect(first.status).toBe(200);
    answer = () => ({ status: 500, body: { error: { message: 'down' } } });
    const failed = await chat({ agent_token: agent.agent_token, message: 'two', session_id: first.body.session_id });
    expect(failed.status).toBe(502);
    answer = echo;
    const ok = await chat({
      agent_token: agent.agent_token,
      message: 'three',
      session_id: failed.body.error.details.session_id,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.response).toBe('echo: three');
    // History is the last two earlier messages here (PARLEY_LLM_HISTORY_MESSAGES): 'two' without its failed answer.
    expect(completions().at(-1)!.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'two' },
      { role: 'user', content: 'three' },
    ]);
  });
});
