import { describe, expect, it } from 'vitest';
import { builtInActions } from '../../src/tools/built-in.js';
import { parseWebhookAction, sipTransferUri, withAgentTarget } from '../../src/actions/call-action.js';
import { validatorFor as compileSchema } from '../../src/schemas/json-schema.js';
import { defaultAgentSettings, type StoredAgent } from '../../src/schemas/agent.js';

const agent = (settings: Partial<StoredAgent> = {}): StoredAgent => ({
  id: 'agt_test',
  name: 'Test',
  ...defaultAgentSettings,
  webhook_api_key: null,
  agent_token: 'pat_test',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...settings,
});

describe('built-in actions for the LLM', () => {
  it('are offered only when enabled, in enhanced mode', () => {
    expect(builtInActions(agent())).toEqual([]);
    expect(builtInActions(agent({ end_call_enabled: true })).map((a) => a.name)).toEqual(['end_call']);
    expect(
      builtInActions(agent({ end_call_enabled: true, transfer_enabled: true })).map((a) => a.definition.function.name),
    ).toEqual(['end_call', 'transfer']);
    expect(builtInActions(agent({ mode: 'passthrough', end_call_enabled: true, transfer_enabled: true }))).toEqual([]);
  });

  it('definitions are OpenAI function tools whose parameters are valid JSON Schemas', () => {
    for (const action of builtInActions(agent({ end_call_enabled: true, transfer_enabled: true }))) {
      expect(action.definition.type).toBe('function');
      const validate = compileSchema(action.definition.function.parameters as Record<string, unknown>);
      expect(validate({ closing_words: 'Bye.' })).toBe(true);
      expect(validate({ destination: 'anywhere' })).toBe(false);
    }
  });

  it('end_call: the closing words to say, then the hang-up', () => {
    const [endCall] = builtInActions(agent({ end_call_enabled: true }));
    expect(endCall!.handle({ closing_words: ' Goodbye, take care! ' })).toMatchObject({
      action: { type: 'end_call' },
      say: 'Goodbye, take care!',
      result: { ok: true },
    });
    // Arguments the model got wrong are read leniently: the call still ends.
    expect(endCall!.handle('not an object')).toMatchObject({ action: { type: 'end_call' }, say: '' });
    expect(endCall!.handle({ closing_words: 42 })).toMatchObject({ action: { type: 'end_call' }, say: '' });
  });

  it("transfer goes to the agent's transfer_to, never where the model says", () => {
    const [, transfer] = builtInActions(
      agent({ end_call_enabled: true, transfer_enabled: true, transfer_to: 'sip:desk@pbx.example.com' }),
    );
    expect(transfer!.handle({ reason: 'billing question', closing_words: 'Connecting you.', to: '+1900' })).toEqual({
      action: { type: 'transfer', to: 'sip:desk@pbx.example.com' },
      say: 'Connecting you.',
      result: { ok: true, status: 'the caller is transferred after your closing words', reason: 'billing question' },
    });
  });
});

describe('webhook actions', () => {
  it('absent or null is none; end_call and transfer parse; unknown fields are ignored', () => {
    expect(parseWebhookAction(undefined)).toEqual({ ok: true, action: null });
    expect(parseWebhookAction(null)).toEqual({ ok: true, action: null });
    expect(parseWebhookAction({ type: 'end_call', extra: 1 })).toEqual({ ok: true, action: { type: 'end_call' } });
    expect(parseWebhookAction({ type: 'transfer' })).toEqual({ ok: true, action: { type: 'transfer', to: null } });
    expect(parseWebhookAction({ type: 'transfer', to: 'sip:+15105550100@pbx.example.com' })).toEqual({
      ok: true,
      action: { type: 'transfer', to: 'sip:+15105550100@pbx.example.com' },
    });
  });

  it('anything else is an error naming the field', () => {
    for (const bad of [
      { type: 'hangup' },
      'end_call',
      { type: 'transfer', to: 'my boss' },
      { type: 'transfer', to: 5 },
    ]) {
      const parsed = parseWebhookAction(bad);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(/^webhook reply has an invalid action \(action/);
    }
  });

  it('a transfer without `to` takes the agent’s; bare numbers become tel: URIs for LiveKit', () => {
    expect(withAgentTarget({ type: 'transfer', to: null }, '+15105550100')).toEqual({
      type: 'transfer',
      to: '+15105550100',
    });
    expect(withAgentTarget({ type: 'transfer', to: 'tel:+1' }, '+15105550100')).toEqual({
      type: 'transfer',
      to: 'tel:+1',
    });
    expect(withAgentTarget({ type: 'end_call' }, '+15105550100')).toEqual({ type: 'end_call' });
    expect(sipTransferUri('+1 (510) 555-0100')).toBe('tel:+15105550100');
    expect(sipTransferUri('sip:desk@pbx.example.com')).toBe('sip:desk@pbx.example.com');
  });
});
