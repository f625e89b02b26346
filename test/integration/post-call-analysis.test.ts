import { createClient } from 'redis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { adminClient } from '../support/admin-client.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { startOpenAiServer, type ChatCompletionRequest } from '../support/openai-server.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { startParleyProcess, type ParleyProcess } from '../support/main-process.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Issue 14 item 5: when a session of an agent with `analysis` ends, its LLM (the fake
 * OpenAI-compatible server) writes a summary and the operator's structured fields off the request
 * path, through a durable queue; they are stored on the conversation and announced as
 * `analysis_ready`. The request is written with the session's end, so a Parley killed right
 * after (kill -9) loses nothing: the next one runs it. Failures are retried, then recorded.
 */

const schema = {
  type: 'object',
  properties: { party_size: { type: 'integer' }, resolved: { type: 'boolean' } },
  required: ['party_size', 'resolved'],
};

let redis: TestRedis;
let webhook: HttpReceiver;
let events: HttpReceiver;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let llmAnswer: (req: ChatCompletionRequest, index: number) => string | Reply;
let client: ReturnType<typeof createClient>;
const started: (TestParley | ParleyProcess)[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  client = createClient({ url: redis.url });
  await client.connect();
  webhook = await HttpReceiver.start((req) => {
    const transcript = (req.json as { data: { transcript: string } }).data.transcript;
    return transcript.includes('bye')
      ? { body: { response: 'Goodbye!', action: { type: 'end_call' } } }
      : { body: { response: 'Booked for two at eight.' } };
  });
  events = await HttpReceiver.start(() => ({ status: 204 }));
  llm = await startOpenAiServer((req, index) => llmAnswer(req, index));
});
afterAll(async () => {
  for (const p of started) {
    if ('close' in p) await p.close();
    else if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
  client?.destroy();
  await Promise.all([webhook?.close(), events?.close(), llm?.close()]);
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  events.requests.length = 0;
  llm.requests.length = 0;
});

const agentSettings = () => ({
  name: 'Analysed',
  mode: 'passthrough',
  webhook_url: webhook.url,
  events_url: events.url,
  analysis: { enabled: true, prompt: 'Note whether the booking was made.', schema },
});

/** Two chat turns; the webhook's `end_call` on the second ends the session. */
async function converse(url: string, agentToken: string): Promise<string> {
  const post = (body: Record<string, unknown>) =>
    fetch(`${url}/sdk/v1/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent_token: agentToken, ...body }),
    });
  const first = (await (await post({ message: 'A table for two at eight, please.' })).json()) as { session_id: string };
  await post({ message: 'Thanks, bye', session_id: first.session_id }).catch(() => undefined);
  return first.session_id;
}

function analysisEvent(sessionId: string) {
  return events.requests
    .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
    .find((e) => e.type === 'analysis_ready' && e.session_id === sessionId);
}

describe('post-call analysis', () => {
  it('survives kill -9 between the session end and the analysis: the next Parley writes it and the event arrives', async () => {
    llmAnswer = () =>
      JSON.stringify({ summary: 'The user booked a table for two at eight.', data: { party_size: 2, resolved: true } });
    const doomed = await startParleyProcess(redis, {
      PARLEY_TEST_CRASH_AFTER_RECORD: 'session_end',
      PARLEY_EVENT_RELAY_INTERVAL_MS: '600000',
    });
    started.push(doomed);
    const agent = await createAgent(adminClient(doomed.url, testAdminKey), agentSettings());
    const sessionId = await converse(doomed.url, agent.agent_token);
    expect(await doomed.exited).toBe('SIGKILL');

    // The session's end and its analysis request were written together; nothing was queued or asked.
    expect(await client.hGet(`parley:{session:${sessionId}}`, 'end_reason')).toBe('agent_hangup');
    const requests = await client.lRange('parley:analysis:outbox', 0, -1);
    expect(requests.map((r) => JSON.parse(r) as { session_id: string })).toMatchObject([{ session_id: sessionId }]);
    expect(llm.requests).toHaveLength(0);

    const next = await startParley(redis, { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test' });
    started.push(next);
    await events.until(() => analysisEvent(sessionId) !== undefined, 20_000);
    const session = await next.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await next.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.analysis).toMatchObject({
      summary: 'The user booked a table for two at eight.',
      data: { party_size: 2, resolved: true },
      model: 'gpt-4o-mini',
    });
    expect(analysisEvent(sessionId)!.data).toEqual({
      conversation_id: session.body.conversation_id,
      summary: 'The user booked a table for two at eight.',
      data: { party_size: 2, resolved: true },
      model: conversation.body.analysis.model,
    });
    expect(await client.lLen('parley:analysis:outbox')).toBe(0);

    // The LLM was asked once, for JSON matching the operator's schema, with the transcript and the prompt.
    expect(llm.requests).toHaveLength(1);
    const asked = llm.requests[0]!.json as ChatCompletionRequest & {
      response_format: { type: string; json_schema: { schema: { properties: { data: unknown } } } };
    };
    expect(asked.response_format.type).toBe('json_schema');
    expect(asked.response_format.json_schema.schema.properties.data).toEqual(schema);
    expect(asked.messages[0]!.content).toContain('Note whether the booking was made.');
    expect(asked.messages[1]!.content).toContain('User: A table for two at eight, please.');
    expect(asked.messages[1]!.content).toContain('Agent: Goodbye!');
  }, 90_000);

  it('an answer that does not match the schema is retried; three failures leave an analysis_failed record', async () => {
    const p = await startParley(redis, {
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      PARLEY_ANALYSIS_RETRY_BASE_MS: '50',
    });
    started.push(p);
    // First session: a reply without the required fields, then a valid one: stored after one retry.
    let calls = 0;
    llmAnswer = () =>
      calls++ === 0
        ? JSON.stringify({ summary: 'Missing data.', data: { party_size: 'two' } })
        : JSON.stringify({ summary: 'Booked.', data: { party_size: 2, resolved: true } });
    const agent = await createAgent(p, agentSettings());
    const retried = await converse(p.url, agent.agent_token);
    await events.until(() => analysisEvent(retried) !== undefined, 20_000);
    expect(llm.requests).toHaveLength(2);
    expect(analysisEvent(retried)!.data).toMatchObject({ summary: 'Booked.' });

    // Second session: the LLM fails every time.
    llm.requests.length = 0;
    llmAnswer = () => ({ status: 500, body: { error: { message: 'model overloaded' } } });
    const failed = await converse(p.url, agent.agent_token);
    const failures = async () =>
      (await p.request('GET', `/admin/v1/errors?session_id=${failed}`)).body.data as {
        type: string;
        message: string;
      }[];
    const deadline = Date.now() + 20_000;
    while ((await failures()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const [record] = await failures();
    expect(record).toMatchObject({ type: 'analysis_failed' });
    expect(record!.message).toMatch(/after 3 attempts/);
    expect(llm.requests).toHaveLength(3);
    const session = await p.request('GET', `/admin/v1/sessions/${failed}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.analysis).toBeNull();
    expect(analysisEvent(failed)).toBeUndefined();
  }, 60_000);
});
