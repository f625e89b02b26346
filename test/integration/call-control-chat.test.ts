import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { parleyForFile } from '../support/parley.js';

/**
 * Issue 14 item 3 in chat: the webhook's reply may carry `action` beside `response`. `end_call`
 * ends the chat session after the answer (the reply says `ended: true`), `transfer` ends it
 * `transferred` and hands the destination to the client, a malformed action is recorded and
 * ignored. Also the agent settings of call control and analysis, validated at save time.
 */

let webhook: HttpReceiver;
let events: HttpReceiver;
let reply: () => Reply;
const bed = parleyForFile({ PARLEY_EVENT_RETRY_BASE_MS: '50' });

beforeAll(async () => {
  webhook = await HttpReceiver.start(() => reply());
  events = await HttpReceiver.start(() => ({ status: 204 }));
});
afterAll(async () => {
  await webhook?.close();
  await events?.close();
});

async function passthrough(settings: Record<string, unknown> = {}) {
  return createAgent(bed.p, {
    mode: 'passthrough',
    webhook_url: webhook.url,
    events_url: events.url,
    ...settings,
  });
}

function chat(agentToken: string, message: string, sessionId?: string) {
  return bed.p.request('POST', '/sdk/v1/chat', {
    apiKey: null,
    body: { agent_token: agentToken, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
  });
}

describe('passthrough call control in chat', () => {
  it('end_call: the answer comes back, the session ends agent_hangup, the reply says ended', async () => {
    const agent = await passthrough();
    reply = () => ({ body: { response: 'Happy to help.' } });
    const first = await chat(agent.agent_token, 'hello');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ session_id: first.body.session_id, response: 'Happy to help.', mode: 'passthrough' });

    reply = () => ({ body: { response: 'Goodbye!', action: { type: 'end_call' }, unknown_field: 1 } });
    const last = await chat(agent.agent_token, 'that is all, bye', first.body.session_id);
    expect(last.status).toBe(200);
    expect(last.body).toEqual({
      session_id: first.body.session_id,
      response: 'Goodbye!',
      mode: 'passthrough',
      ended: true,
    });
    const session = await bed.p.request('GET', `/admin/v1/sessions/${first.body.session_id}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'agent_hangup', turns: 2 });
    // The answer is stored before the session ends.
    const conversation = await bed.p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.messages.map((m: { text: string }) => m.text)).toEqual([
      'hello',
      'Happy to help.',
      'that is all, bye',
      'Goodbye!',
    ]);
    // The session is over: continuing it is refused; a message without session_id starts a new one.
    const after = await chat(agent.agent_token, 'wait', first.body.session_id);
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('session_ended');
    await events.until(() =>
      events.requests.some(
        (r) =>
          (r.json as { type: string; session_id: string }).type === 'session_end' &&
          (r.json as { session_id: string }).session_id === first.body.session_id,
      ),
    );
    const end = events.requests
      .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
      .find((e) => e.type === 'session_end' && e.session_id === first.body.session_id)!;
    expect(end.data).toMatchObject({ reason: 'agent_hangup', session_type: 'chat', turns: 2 });
  });

  it("transfer: ends the session `transferred`; `to` is the action's, else the agent's transfer_to", async () => {
    const agent = await passthrough({ transfer_to: 'sip:desk@pbx.example.com' });
    reply = () => ({ body: { response: 'Let me connect you.', action: { type: 'transfer' } } });
    const own = await chat(agent.agent_token, 'a human please');
    expect(own.body).toMatchObject({ ended: true, transfer: { to: 'sip:desk@pbx.example.com' } });
    reply = () => ({ body: { response: 'Connecting.', action: { type: 'transfer', to: '+15105550100' } } });
    const given = await chat(agent.agent_token, 'sales please');
    expect(given.body).toMatchObject({ ended: true, transfer: { to: '+15105550100' } });
    const session = await bed.p.request('GET', `/admin/v1/sessions/${given.body.session_id}`);
    expect(session.body).toMatchObject({ status: 'ended', end_reason: 'transferred' });
  });

  it('a malformed action is an error record and ignored; the answer still counts', async () => {
    const agent = await passthrough();
    for (const action of [{ type: 'hang_up' }, { type: 'transfer', to: 'not a number' }, 'end_call']) {
      reply = () => ({ body: { response: 'Still here.', action } });
      const res = await chat(agent.agent_token, 'hello');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ session_id: res.body.session_id, response: 'Still here.', mode: 'passthrough' });
      const session = await bed.p.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
      expect(session.body.status).toBe('active');
      const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${res.body.session_id}`);
      expect(errors.body.data).toHaveLength(1);
      expect(errors.body.data[0]).toMatchObject({ type: 'webhook_invalid_action', agent_id: agent.id });
      expect(errors.body.data[0].message).toMatch(/action/);
    }
  });
});

describe('agent settings for call control and analysis', () => {
  it('defaults, round trip and validation (400 with every bad field)', async () => {
    const agent = await createAgent(bed.p);
    expect(agent).toMatchObject({
      end_call_enabled: false,
      transfer_enabled: false,
      transfer_to: null,
      analysis: null,
    });

    const patched = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: {
        end_call_enabled: true,
        transfer_enabled: true,
        transfer_to: 'tel:+15105550100',
        analysis: {
          enabled: true,
          schema: { type: 'object', properties: { resolved: { type: 'boolean' } }, required: ['resolved'] },
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      end_call_enabled: true,
      transfer_enabled: true,
      transfer_to: 'tel:+15105550100',
      analysis: { enabled: true, prompt: null, schema: { type: 'object' } },
    });

    const bad = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: {
        transfer_to: 'call my boss',
        end_call_enabled: 'yes',
        analysis: { enabled: true, schema: { type: 'object', properties: { n: { type: 'numbr' } } } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const paths = (bad.body.error.details as { path: string }[]).map((d) => d.path).sort();
    expect(paths).toEqual(['body.analysis.schema', 'body.end_call_enabled', 'body.transfer_to']);
    const schemaIssue = (bad.body.error.details as { path: string; message: string }[]).find(
      (d) => d.path === 'body.analysis.schema',
    )!;
    expect(schemaIssue.message).toMatch(/not a valid JSON Schema/);

    const notObject = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { analysis: { enabled: true, schema: { type: 'string' } } },
    });
    expect(notObject.status).toBe(400);

    const openapi = await bed.p.request('GET', '/openapi.json', { apiKey: null });
    const patchSchema = JSON.stringify(openapi.body.components.schemas.AgentPatch);
    for (const field of ['end_call_enabled', 'transfer_enabled', 'transfer_to', 'analysis'])
      expect(patchSchema).toContain(field);
  });
});
