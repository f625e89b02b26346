import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { parleyForFile } from '../support/parley.js';
import { verifyParleySignature } from '../support/signature.js';
import { StreamingWebhook, sleep, type StreamHandler } from '../support/streaming-webhook.js';

/**
 * Issue 32 item 4 in chat: a passthrough webhook may stream its answer (SSE or NDJSON) instead of
 * answering JSON. Chat reads it to its end and answers the whole text; a stream that is cut,
 * garbled, stalls, runs past webhook_timeout_ms or carries nothing fails that message only (502,
 * an error record saying why), and the webhook's connection is dropped.
 */

const stallMs = 300;
const bed = parleyForFile({ PARLEY_PROVIDER_STALL_MS: String(stallMs), PARLEY_EVENT_RETRY_BASE_MS: '50' });
let hook: StreamingWebhook;
let events: HttpReceiver;

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

beforeAll(async () => {
  hook = await StreamingWebhook.start();
  events = await HttpReceiver.start(() => ({ status: 204 }));
});
afterAll(async () => {
  await hook?.close();
  await events?.close();
});

const answer = 'Sure, we have a table for two at eight. Shall I book it under your name?';

function agent(settings: Record<string, unknown> = {}) {
  return createAgent(bed.p, { mode: 'passthrough', webhook_url: hook.url, events_url: events.url, ...settings });
}

function chat(agentToken: string, message: string, sessionId?: string) {
  return bed.p.request('POST', '/sdk/v1/chat', {
    apiKey: null,
    body: { agent_token: agentToken, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
  });
}

async function agentMessages(sessionId: string) {
  const session = await bed.p.request('GET', `/admin/v1/sessions/${sessionId}`);
  const conversation = await bed.p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
  return (
    conversation.body.messages as { role: string; text: string; status: string; error_id: string | null }[]
  ).filter((m) => m.role === 'agent');
}

describe('a streamed webhook answer in chat', () => {
  it('is asked for with Accept, signed exactly as a JSON call is', async () => {
    const key = 'whk_stream_0123456789';
    hook.handler = async (_, out) => {
      out.head('text/event-stream');
      await out.words(answer, 'sse');
      out.end();
    };
    const a = await agent({ webhook_api_key: key });
    const res = await chat(a.agent_token, 'A table for two tonight?');
    expect(res.status).toBe(200);
    const call = hook.calls.at(-1)!;
    expect(call.headers['accept']).toBe('application/json, text/event-stream, application/x-ndjson');
    expect(call.headers['content-type']).toMatch(/^application\/json/);
    expect(call.headers['authorization']).toBe(`Bearer ${key}`);
    expect(call.headers['user-agent']).toBe(`Parley/${packageVersion}`);
    expect(verifyParleySignature(call.headers['x-parley-signature'], call.rawBody, key).valid).toBe(true);
    expect(call.json).toMatchObject({
      type: 'transcription_complete',
      data: { transcript: 'A table for two tonight?' },
    });
  });

  for (const [format, contentType] of [
    ['sse', 'text/event-stream'],
    ['ndjson', 'application/x-ndjson; charset=utf-8'],
  ] as const) {
    it(`${format}: the reply, the stored message and llm_response hold the whole text`, async () => {
      hook.handler = async (_, out) => {
        out.head(contentType);
        if (format === 'sse') out.raw(': the model is thinking\n\n');
        await out.words(answer, format);
        out.end();
      };
      const a = await agent();
      const res = await chat(a.agent_token, 'A table for two tonight?');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ session_id: res.body.session_id, response: answer, mode: 'passthrough' });
      expect(await agentMessages(res.body.session_id)).toMatchObject([{ text: answer, status: 'complete' }]);
      const announced = await eventually(
        () =>
          events.requests
            .map((r) => r.json as { type: string; session_id: string; data: { response: string; source: string } })
            .find((e) => e.type === 'llm_response' && e.session_id === res.body.session_id),
        (e) => e !== undefined,
        { what: 'llm_response' },
      );
      expect(announced?.data).toMatchObject({ response: answer, source: 'webhook' });
    });
  }

  it('ends at done: true (the rest is not waited for) and carries its action', async () => {
    hook.handler = async (_, out) => {
      out.head('application/x-ndjson');
      await out.words('Goodbye, and thanks for calling.', 'ndjson');
      out.ndjson({ action: { type: 'end_call' }, done: true });
      // the webhook keeps its response open: Parley does not wait for it
      await sleep(5_000);
      out.end();
    };
    const a = await agent();
    const res = await chat(a.agent_token, 'That is all.');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: 'Goodbye, and thanks for calling.', ended: true });
    const call = hook.calls.at(-1)!;
    await call.closed;
    expect(call.abandonedAt).not.toBeNull();
    const session = await bed.p.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'agent_hangup' });
  });

  it('a JSON answer is read as before, whatever its Content-Type parameters', async () => {
    hook.handler = (_, out) => {
      out.head('application/json; charset=utf-8');
      out.raw(JSON.stringify({ response: 'Plain JSON still works.' }));
      out.end();
    };
    const res = await chat((await agent()).agent_token, 'Hello?');
    expect(res.body).toMatchObject({ response: 'Plain JSON still works.' });
  });
});

describe('a streamed answer that fails fails that message only', () => {
  const cases: {
    what: string;
    handler: StreamHandler;
    type: string;
    message: RegExp;
    settings?: Record<string, unknown>;
    /** The webhook holds its response open after the failure (Parley must drop it). */
    held?: true;
  }[] = [
    {
      what: 'cut midway (the server dies)',
      handler: async (_, out) => {
        out.head('text/event-stream');
        await out.words('Sure, let me see what we have', 'sse');
        out.cut();
      },
      type: 'webhook_network_error',
      message: /^webhook stream failed: the connection closed before the reply was complete$/,
    },
    {
      what: 'garbage midway',
      handler: async (_, out) => {
        out.head('text/event-stream');
        await out.words('Sure, ', 'sse');
        out.raw('data: <html>502 Bad Gateway</html>\n\n');
        await sleep(5_000);
        out.end();
      },
      held: true,
      type: 'webhook_invalid_response',
      message: /^webhook stream sent a record that is not JSON: "<html>502 Bad Gateway<\/html>"$/,
    },
    {
      what: `a stall past PARLEY_PROVIDER_STALL_MS (${stallMs} ms)`,
      handler: async (_, out) => {
        out.head('application/x-ndjson');
        await out.words('Sure, let me', 'ndjson');
        await sleep(5_000);
        out.end();
      },
      held: true,
      type: 'webhook_timeout',
      message: new RegExp(`^webhook stream stalled: nothing for ${stallMs} ms$`),
    },
    {
      what: 'keep-alives past webhook_timeout_ms',
      handler: async (_, out) => {
        out.head('text/event-stream');
        for (let i = 0; i < 100 && !out.gone; i++) {
          out.raw(': still thinking\n\n');
          await sleep(50);
        }
        out.end();
      },
      settings: { webhook_timeout_ms: 1_000 },
      held: true,
      type: 'webhook_timeout',
      message: /^webhook stream did not end within 1000 ms$/,
    },
    {
      what: 'nothing after its head',
      handler: async (_, out) => {
        out.head('text/event-stream');
        await sleep(5_000);
        out.end();
      },
      settings: { webhook_timeout_ms: 1_000 },
      held: true,
      type: 'webhook_timeout',
      message: /^webhook stream did not end within 1000 ms$/,
    },
    {
      what: 'no answer in it',
      handler: (_, out) => {
        out.head('application/x-ndjson');
        out.raw('\n{}\n');
        out.end();
      },
      type: 'webhook_invalid_response',
      message: /ended without an answer/,
    },
    {
      what: 'a type Parley does not read',
      handler: (_, out) => {
        out.head('text/plain');
        out.raw('Sure, we have a table.');
        out.end();
      },
      type: 'webhook_invalid_response',
      message:
        /^webhook reply is not JSON \(Content-Type text\/plain; Parley reads application\/json, text\/event-stream, application\/x-ndjson\)$/,
    },
    {
      what: 'an error status, whatever its type',
      handler: (_, out) => {
        out.head('text/event-stream', 503);
        out.sse({ text: 'not to be used' });
        out.end();
      },
      type: 'webhook_http_error',
      message: /^webhook answered HTTP 503$/,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: 502, a ${c.type} record, the connection dropped; the next message is answered`, async () => {
      const a = await agent(c.settings);
      hook.handler = async (_, out) => {
        out.head('text/event-stream');
        await out.words('Hello again.', 'sse');
        out.end();
      };
      const first = await chat(a.agent_token, 'Hi.');
      expect(first.status).toBe(200);
      hook.handler = c.handler;
      const res = await chat(a.agent_token, 'A table for two?', first.body.session_id);
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'upstream_error', message: "the agent's webhook did not answer" });
      const record = await bed.p.request('GET', `/admin/v1/errors/${res.body.error.details.error_id}`);
      expect(record.body).toMatchObject({ type: c.type, session_id: first.body.session_id });
      expect(record.body.message).toMatch(c.message);
      // A response the webhook held open is dropped by Parley once the message failed.
      const call = hook.calls.at(-1)!;
      await call.closed;
      if (c.held === true) expect(call.abandonedAt).not.toBeNull();

      hook.handler = (_, out) => {
        out.head('application/x-ndjson');
        out.ndjson({ text: 'Back again.' });
        out.end();
      };
      const next = await chat(a.agent_token, 'Still there?', first.body.session_id);
      expect(next.body).toMatchObject({ response: 'Back again.' });
      expect((await agentMessages(first.body.session_id)).map((m) => [m.status, m.text])).toEqual([
        ['complete', 'Hello again.'],
        ['failed', ''],
        ['complete', 'Back again.'],
      ]);
    });
  }
});
