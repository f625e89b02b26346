import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schemas/agent.js';
import { createAgent } from '../support/agents.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver, type ReceivedRequest, type Reply } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest, type ToolCallsAnswer } from '../support/openai-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { verifyParleySignature } from '../support/signature.js';

/**
 * Operator tools over POST /sdk/v1/chat in enhanced mode: a fake OpenAI-compatible server streams
 * tool calls, real HTTP servers answer them, and the records and `tool_call` events are checked.
 */

type Script = (
  req: ChatCompletionRequest,
  index: number,
) => string | Reply | ToolCallsAnswer | Promise<string | ToolCallsAnswer>;

let redis: TestRedis;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let tools: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;
let script: Script;

const key = 'tool-key-0123456789';

beforeAll(async () => {
  redis = await TestRedis.start();
  // The index counts this test's requests (the server's own counts every test's).
  llm = await startOpenAiServer((req) => script(req, llm.requests.length - 1));
  tools = await HttpReceiver.start();
  events = await HttpReceiver.start();
  p = await startParley(redis, {
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    PARLEY_RATE_LIMIT_BURST: '10000',
    PARLEY_EVENT_RELAY_INTERVAL_MS: '50',
  });
});
afterAll(async () => {
  await p?.close();
  await llm?.close();
  await tools?.close();
  await events?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  llm.requests.length = 0;
  tools.requests.length = 0;
  events.requests.length = 0;
  tools.respond = () => ({ body: { ok: true } });
  script = () => 'no script';
});

const orderTool = (overrides: Record<string, unknown> = {}) => ({
  name: 'lookup_order',
  description: 'Look up an order by its id.',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string' } },
    required: ['order_id'],
    additionalProperties: false,
  },
  url: `${tools.url}/orders`,
  ...overrides,
});

const weatherTool = () => ({
  name: 'weather',
  description: 'Weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  url: `${tools.url}/weather`,
});

function toolAgent(toolList: unknown[], settings: Record<string, unknown> = {}): Promise<Agent> {
  return createAgent(p, {
    mode: 'enhanced',
    tools: toolList,
    webhook_api_key: key,
    events_url: events.url,
    ...settings,
  });
}

const chat = (agent: Agent, message: string, sessionId?: string) =>
  p.request('POST', '/sdk/v1/chat', {
    apiKey: null,
    body: { agent_token: agent.agent_token, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
  });

const completions = () => llm.requests.map((r) => r.json as ChatCompletionRequest);
const toolMessages = (req: ChatCompletionRequest) => req.messages.filter((m) => m.role === 'tool');

async function conversationOf(sessionId: string) {
  const list = await p.request('GET', `/admin/v1/conversations?session_id=${sessionId}`);
  const res = await p.request('GET', `/admin/v1/conversations/${list.body.data[0].id}`);
  return res.body.messages as Record<string, unknown>[];
}

/** The session's `tool_call` events (an earlier test's late delivery is another session's). */
async function toolEvents(sessionId: string, count: number) {
  const ofSession = () =>
    events.requests.filter((r) => {
      const event = r.json as { type: string; session_id: string };
      return event.type === 'tool_call' && event.session_id === sessionId;
    });
  await eventually(
    () => ofSession().length,
    (n) => n >= count,
    { what: `${count} tool_call events` },
  );
  return ofSession();
}

describe('saving tools', () => {
  it('stores tools with their defaults and shows them on the agent', async () => {
    const agent = await toolAgent([orderTool()]);
    expect(agent.tools).toEqual([{ ...orderTool(), timeout_ms: 5000, slow_phrase: null }]);
    const read = await p.request('GET', `/admin/v1/agents/${agent.id}`);
    expect(read.body.tools).toEqual(agent.tools);
  });

  it('refuses bad names, duplicates, invalid schemas and plain http to other hosts, naming each field', async () => {
    const res = await p.request('POST', '/admin/v1/agents', {
      body: {
        name: 'bad tools',
        tools: [
          orderTool({ name: 'has space' }),
          orderTool({ parameters: { type: 'object', properties: { a: { type: 'nope' } } } }),
          orderTool({ parameters: { type: 'string' } }),
          weatherTool(),
          weatherTool(),
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const paths = (res.body.error.details as { path: string; message: string }[]).map((d) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'body.tools.0.name',
        'body.tools.1.parameters',
        'body.tools.2.parameters',
        'body.tools.4.name',
      ]),
    );
    const schemaProblem = res.body.error.details.find((d: { path: string }) => d.path === 'body.tools.1.parameters');
    expect(schemaProblem.message).toMatch(/invalid JSON Schema/);

    const insecure = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'http tool', tools: [orderTool({ url: 'http://tools.example.com/orders' })] },
    });
    expect(insecure.status).toBe(400);
    expect(insecure.body.error.details).toEqual([
      { path: 'body.tools.0.url', message: expect.stringMatching(/https/) },
    ]);
    const secure = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'https tool', tools: [orderTool({ url: 'https://tools.example.com/orders' })] },
    });
    expect(secure.status).toBe(201);
  });

  it('takes plain http to any host with PARLEY_ALLOW_HTTP_TOOLS', async () => {
    const open = await startParley(redis, { PARLEY_ALLOW_HTTP_TOOLS: 'true' });
    try {
      const res = await open.request('POST', '/admin/v1/agents', {
        body: { name: 'http tool', tools: [orderTool({ url: 'http://tools.internal:8080/orders' })] },
      });
      expect(res.status).toBe(201);
    } finally {
      await open.close();
    }
  });
});

describe('a chat turn with tools', () => {
  it('calls one tool, signed like the webhook, feeds its result back, and stores the call with its event', async () => {
    const agent = await toolAgent([orderTool()]);
    tools.respond = () => ({ body: { status: 'shipped', eta: '2 days' } });
    script = (req, i) =>
      i === 0
        ? { toolCalls: [{ id: 'call_a', name: 'lookup_order', arguments: { order_id: 'A-17' } }] }
        : 'It shipped; two days.';
    const res = await chat(agent, 'Where is my order A-17?');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('It shipped; two days.');

    const [call] = tools.requests;
    expect(call!.path).toBe('/orders');
    expect(call!.json).toEqual({
      type: 'tool_call',
      session_id: res.body.session_id,
      agent_id: agent.id,
      call_id: 'call_a',
      tool: 'lookup_order',
      arguments: { order_id: 'A-17' },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(call!.headers['authorization']).toBe(`Bearer ${key}`);
    expect(verifyParleySignature(call!.headers['x-parley-signature'], call!.rawBody, key).valid).toBe(true);

    const [first, second, ...more] = completions();
    expect(more).toEqual([]);
    expect(first!.stream).toBe(true);
    expect(first!.tools?.map((t) => t.function.name)).toEqual(['lookup_order']);
    expect(first!.tool_choice).toBe('auto');
    expect(second!.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-17"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"status":"shipped","eta":"2 days"}' },
    ]);

    const messages = await conversationOf(res.body.session_id);
    expect(messages.map((m) => m['role'])).toEqual(['user', 'tool', 'agent']);
    expect(messages[1]).toMatchObject({
      text: '{"status":"shipped","eta":"2 days"}',
      status: 'complete',
      error_id: null,
      tool_call: {
        call_id: 'call_a',
        name: 'lookup_order',
        arguments: { order_id: 'A-17' },
        result: { status: 'shipped', eta: '2 days' },
        latency_ms: expect.any(Number),
      },
    });
    const [event] = await toolEvents(res.body.session_id, 1);
    expect(event!.json).toMatchObject({
      type: 'tool_call',
      session_id: res.body.session_id,
      agent_id: agent.id,
      data: {
        message_id: messages[1]!['id'],
        call_id: 'call_a',
        tool: 'lookup_order',
        arguments: { order_id: 'A-17' },
        result: { status: 'shipped', eta: '2 days' },
        status: 'complete',
        channel: 'chat',
        turn: 1,
      },
    });

    // The next turn's prompt carries the call as history.
    script = () => 'Anything else?';
    await chat(agent, 'Thanks.', res.body.session_id);
    const history = completions().at(-1)!.messages;
    expect(history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('runs the calls the model asks for at once in parallel, and answers with both results', async () => {
    const agent = await toolAgent([orderTool(), weatherTool()]);
    let release: () => void = () => undefined;
    const bothArrived = new Promise<void>((resolve) => (release = resolve));
    tools.respond = async (req: ReceivedRequest, index) => {
      if (index === 1) release();
      await bothArrived; // neither answers before the other has arrived: they run side by side
      return { body: req.path === '/orders' ? { status: 'packed' } : { sky: 'clear' } };
    };
    script = (_req, i) =>
      i === 0
        ? {
            text: 'Let me check.',
            toolCalls: [
              { id: 'c1', name: 'lookup_order', arguments: { order_id: 'B-2' } },
              { id: 'c2', name: 'weather', arguments: { city: 'Oslo' } },
            ],
          }
        : 'Packed, and clear skies.';
    const res = await chat(agent, 'Order B-2, and the weather in Oslo?');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('Let me check.\nPacked, and clear skies.');
    expect(tools.requests.map((r) => r.path).sort()).toEqual(['/orders', '/weather']);
    expect(toolMessages(completions()[1]!)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '{"status":"packed"}' },
      { role: 'tool', tool_call_id: 'c2', content: '{"sky":"clear"}' },
    ]);
    const messages = await conversationOf(res.body.session_id);
    expect(messages.map((m) => m['role'])).toEqual(['user', 'tool', 'tool', 'agent']);
    expect(await toolEvents(res.body.session_id, 2)).toHaveLength(2);
  });

  it('follows a chain of two rounds, the second call using the first one’s result', async () => {
    const agent = await toolAgent([orderTool(), weatherTool()]);
    tools.respond = (req) => ({ body: req.path === '/orders' ? { city: 'Bergen' } : { sky: 'rain' } });
    script = (req, i) => {
      if (i === 0) return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'C-3' } }] };
      if (i === 1) {
        const city = (JSON.parse(toolMessages(req)[0]!.content!) as { city: string }).city;
        return { toolCalls: [{ name: 'weather', arguments: { city } }] };
      }
      return 'Rain in Bergen where it goes.';
    };
    const res = await chat(agent, 'What weather awaits order C-3?');
    expect(res.body.response).toBe('Rain in Bergen where it goes.');
    expect(tools.requests.map((r) => (r.json as { arguments: unknown }).arguments)).toEqual([
      { order_id: 'C-3' },
      { city: 'Bergen' },
    ]);
    expect(completions()).toHaveLength(3);
    expect(toolMessages(completions()[2]!)).toHaveLength(2);
  });

  it('stops after five rounds of calls: the sixth request must answer in text', async () => {
    const agent = await toolAgent([orderTool()]);
    tools.respond = () => ({ body: { status: 'unknown' } });
    script = (req) =>
      req.tool_choice === 'none'
        ? 'I could not find it.'
        : { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'D' } }] };
    const res = await chat(agent, 'Keep looking.');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('I could not find it.');
    expect(completions().map((c) => c.tool_choice)).toEqual(['auto', 'auto', 'auto', 'auto', 'auto', 'none']);
    expect(tools.requests).toHaveLength(5);
  });
});

describe('tool failures: the model is told, an error record is written, the turn still answers', () => {
  const cases: { what: string; tool?: Record<string, unknown>; args?: unknown; reply?: Reply; failure: string }[] = [
    { what: 'arguments that do not match the schema', args: { order_id: 42 }, failure: 'bad_arguments' },
    { what: 'arguments that are not JSON', args: '{"order_id": ', failure: 'bad_arguments' },
    { what: 'a timeout', tool: { timeout_ms: 200 }, reply: { delayMs: 3_000, body: {} }, failure: 'timeout' },
    { what: 'a non-2xx answer', reply: { status: 500, body: { oops: true } }, failure: 'http_error' },
    { what: 'a reply that is not JSON', reply: { body: 'not json {' }, failure: 'invalid_response' },
  ];
  for (const c of cases) {
    it(c.what, async () => {
      const agent = await toolAgent([orderTool(c.tool ?? {})]);
      tools.respond = () => c.reply ?? { body: { status: 'fine' } };
      script = (_req, i) =>
        i === 0
          ? {
              toolCalls: [
                {
                  id: 'call_x',
                  name: 'lookup_order',
                  arguments: (c.args ?? { order_id: 'E-5' }) as Record<string, unknown>,
                },
              ],
            }
          : 'Sorry, I cannot look that up right now.';
      const res = await chat(agent, 'Where is E-5?');
      expect(res.status).toBe(200);
      expect(res.body.response).toBe('Sorry, I cannot look that up right now.');
      if (c.failure === 'bad_arguments') expect(tools.requests).toHaveLength(0);

      const [told] = toolMessages(completions()[1]!);
      expect(told!.tool_call_id).toBe('call_x');
      expect(JSON.parse(told!.content!)).toEqual({ error: expect.any(String) });

      const messages = await conversationOf(res.body.session_id);
      const tool = messages.find((m) => m['role'] === 'tool')!;
      expect(tool).toMatchObject({
        status: 'failed',
        error_id: expect.stringMatching(/^err_/),
        tool_call: { call_id: 'call_x', name: 'lookup_order', error: { code: c.failure } },
      });
      const error = await p.request('GET', `/admin/v1/errors/${tool['error_id'] as string}`);
      expect(error.body).toMatchObject({
        type: 'tool_error',
        agent_id: agent.id,
        session_id: res.body.session_id,
        details: { tool: 'lookup_order', call_id: 'call_x', failure: c.failure },
      });
      const [event] = await toolEvents(res.body.session_id, 1);
      expect(event!.json).toMatchObject({ data: { status: 'failed', error: { code: c.failure } } });
    });
  }

  it('a call of a tool the agent does not have', async () => {
    const agent = await toolAgent([orderTool()]);
    script = (_req, i) =>
      i === 0 ? { toolCalls: [{ name: 'delete_everything', arguments: {} }] } : 'I cannot do that.';
    const res = await chat(agent, 'Delete it all.');
    expect(res.body.response).toBe('I cannot do that.');
    const messages = await conversationOf(res.body.session_id);
    expect(messages[1]).toMatchObject({
      role: 'tool',
      status: 'failed',
      tool_call: { error: { code: 'unknown_tool' } },
    });
  });
});

describe('built-in actions called by the model', () => {
  it('end_call: the closing words are the answer, the chat session ends, the model is not asked again', async () => {
    const agent = await toolAgent([], { end_call_enabled: true });
    script = () => ({ toolCalls: [{ name: 'end_call', arguments: { closing_words: 'Goodbye, and thanks!' } }] });
    const res = await chat(agent, 'that is all, bye');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: 'Goodbye, and thanks!', ended: true });
    // end_call was offered beside the (empty) operator tools, and one request sufficed.
    expect(completions()).toHaveLength(1);
    expect(completions()[0]!.tools?.map((t) => t.function.name)).toEqual(['end_call']);
    const again = await chat(agent, 'hello?', res.body.session_id);
    expect(again.status).toBe(409);
    const messages = await conversationOf(res.body.session_id);
    expect(messages.find((m) => m['role'] === 'tool')).toMatchObject({
      tool_call: { name: 'end_call', result: { ok: true } },
    });
  });

  it('transfer goes to the agent’s transfer_to, never a destination the model names', async () => {
    const agent = await toolAgent([], { transfer_enabled: true, transfer_to: '+15105550100' });
    script = () => ({
      toolCalls: [
        { name: 'transfer', arguments: { reason: 'wants a person', closing_words: 'Transferring you now.' } },
      ],
    });
    const res = await chat(agent, 'let me talk to a human');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      response: 'Transferring you now.',
      ended: true,
      transfer: { to: '+15105550100' },
    });
  });

  it('built-in actions are not offered when the agent does not enable them', async () => {
    const agent = await toolAgent([orderTool()]);
    script = () => 'Hello.';
    expect((await chat(agent, 'hi')).status).toBe(200);
    expect(completions()[0]!.tools?.map((t) => t.function.name)).toEqual(['lookup_order']);
  });
});
