import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { StreamingWebhook, sleep, type StreamCall, type StreamHandler } from '../support/streaming-webhook.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Issue 32 item 4 over the WebSocket transport: a passthrough webhook that streams its answer at a
 * model's pace (40 words a second) is spoken sentence by sentence as it arrives (real espeak-ng),
 * the whole text stored; barge-in and hang-up drop the webhook's request; a stream that fails
 * midway fails that turn only (`turn_failed`, the fallback line) and the next turn is answered.
 */

const stallMs = 400;
let redis: TestRedis;
let hook: StreamingWebhook;
let events: HttpReceiver;
let p: TestParley;
const clients: VoiceClient[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  hook = await StreamingWebhook.start();
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(redis, { PARLEY_PROVIDER_STALL_MS: String(stallMs), PARLEY_EVENT_RETRY_BASE_MS: '50' });
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await p?.close();
  await Promise.all([hook?.close(), events?.close()]);
  await redis?.close();
});

async function connect(settings: Record<string, unknown> = {}) {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'espeak voice', tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' } },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'streaming webhook',
      mode: 'passthrough',
      webhook_url: hook.url,
      events_url: events.url,
      preset_id: preset.body.id,
      ...settings,
    },
  });
  expect(agent.status).toBe(201);
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  await client.untilEvent('ready');
  return { client, sessionId: res.body.session_id as string };
}

/** The agent's stored messages of a session, oldest first. */
async function agentMessages(sessionId: string) {
  const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
  const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
  return (conversation.body.messages as { role: string; text: string; status: string }[]).filter(
    (m) => m.role === 'agent',
  );
}

const first = 'Sure, we have a table for two at eight tonight. ';
const rest = 'Shall I book it under your name? It is by the window.';

it('speaks the first sentence while the webhook is still streaming; stores and captions the whole text', async () => {
  const { client, sessionId } = await connect();
  const spoke = client.until(() => client.audio.length > 0, 15_000, 'first audio');
  hook.handler = async (_, out) => {
    out.head('application/x-ndjson');
    await out.words(first, 'ndjson');
    // The rest waits for the first audio (or 5 s, so a Parley that waits for the end still ends).
    await Promise.race([spoke, sleep(5_000)]);
    await out.words(rest, 'ndjson');
    out.ndjson({ done: true });
    out.end();
  };
  client.sendJson({ type: 'text', text: 'A table for two tonight?' });
  const answer = await client.untilAnswer(1, 15_000);
  const call = hook.calls.at(-1)!;
  expect(call.endedAt).not.toBeNull();
  expect(client.audio[0]!.at).toBeLessThan(call.endedAt!);
  const whole = `${first}${rest}`;
  expect(answer['text']).toBe(whole);
  expect(client.eventsOf('response')[0]!['text']).toBe('Sure,');
  const stored = await eventually(
    () => agentMessages(sessionId),
    (messages) => messages.length === 1,
    { what: 'the agent message' },
  );
  expect(stored).toEqual([expect.objectContaining({ text: whole, status: 'complete' })]);
  const announced = await eventually(
    () =>
      events.requests
        .map((r) => r.json as { type: string; session_id: string; data: { response: string; source: string } })
        .find((e) => e.type === 'llm_response' && e.session_id === sessionId),
    (e) => e !== undefined,
    { what: 'llm_response' },
  );
  expect(announced?.data).toMatchObject({ response: whole, source: 'webhook' });
});

async function abandoned(call: StreamCall): Promise<void> {
  await call.closed;
  expect(call.abandonedAt).not.toBeNull();
  expect(call.endedAt).toBeNull();
}

/** Streams a long answer slowly until Parley lets go (or 60 s pass). */
const endless: StreamHandler = async (_, out) => {
  out.head('text/event-stream');
  await out.words(`${first}${'and then some more words '.repeat(100)}`, 'sse', 10);
  out.end();
};

it('barge-in drops the streaming request; the new turn is answered', async () => {
  const { client } = await connect({ interruptions_enabled: true });
  hook.handler = endless;
  client.sendJson({ type: 'text', text: 'Tell me everything.' });
  await client.until(() => client.audio.length > 0, 15_000, 'first audio');
  const call = hook.calls.at(-1)!;
  hook.handler = (_, out) => {
    out.head('text/event-stream');
    out.sse({ text: 'Okay, stopping.', done: true });
    out.end();
  };
  client.sendJson({ type: 'text', text: 'Stop, please.' });
  await abandoned(call);
  await client.untilEvent('interrupted');
  expect((await client.untilAnswer(1, 15_000))['text']).toBe('Okay, stopping.');
});

it('hanging up mid-stream drops the request and ends the session client_hangup', async () => {
  const { client, sessionId } = await connect();
  hook.handler = endless;
  client.sendJson({ type: 'text', text: 'Tell me everything.' });
  await client.until(() => client.audio.length > 0, 15_000, 'first audio');
  const call = hook.calls.at(-1)!;
  client.close();
  await abandoned(call);
  const session = await eventually(
    () => p.request('GET', `/admin/v1/sessions/${sessionId}`),
    (res) => res.body.status === 'ended',
    { what: 'the session ended' },
  );
  expect(session.body.end_reason).toBe('client_hangup');
});

describe('a stream that fails midway fails that turn only', () => {
  const cases: { what: string; reason: string; handler: StreamHandler }[] = [
    {
      what: 'cut',
      reason: 'webhook_network_error',
      handler: async (_, out) => {
        out.head('text/event-stream');
        await out.words(first, 'sse');
        out.cut();
      },
    },
    {
      what: 'garbage',
      reason: 'webhook_invalid_response',
      handler: async (_, out) => {
        out.head('application/x-ndjson');
        await out.words(first, 'ndjson');
        out.raw('{"text": "half a rec\n');
        await sleep(2_000);
        out.end();
      },
    },
    {
      what: `a stall past ${stallMs} ms`,
      reason: 'webhook_timeout',
      handler: async (_, out) => {
        out.head('application/x-ndjson');
        await out.words(first, 'ndjson');
        await sleep(5_000);
        out.end();
      },
    },
  ];
  for (const c of cases) {
    it(`${c.what}: turn_failed ${c.reason}, the fallback line, and the next turn is answered`, async () => {
      const { client, sessionId } = await connect({ fallback_line: 'Sorry, one moment.' });
      hook.handler = c.handler;
      client.sendJson({ type: 'text', text: 'A table for two?' });
      expect(await client.untilEvent('error', 1, 15_000)).toMatchObject({ code: 'turn_failed', reason: c.reason });
      await client.untilEvent('audio_end', 1, 15_000);

      hook.handler = (_, out) => {
        out.head('application/json');
        out.raw(JSON.stringify({ response: 'Yes, at eight.' }));
        out.end();
      };
      client.sendJson({ type: 'text', text: 'Hello?' });
      const answers = () => client.answers().map((a) => a['text']);
      await client.until(() => answers().includes('Yes, at eight.'), 15_000, 'the next answer');
      // voice writes are queued per session: the answer is stored once it has played
      const stored = await eventually(
        () => agentMessages(sessionId),
        (messages) => messages.length === 2,
        { what: 'two agent messages' },
      );
      expect(stored.map((m) => [m.status, m.text])).toEqual([
        ['failed', ''],
        ['complete', 'Yes, at eight.'],
      ]);
    });
  }
});
