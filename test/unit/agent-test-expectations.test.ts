import { describe, expect, it } from 'vitest';
import { containsSubset, evaluate, transcriptOf, type CallOutcome } from '../../src/agent-tests/expectations.js';
import type { Message } from '../../src/schemas/conversation.js';

const message = (role: Message['role'], text: string, extra: Partial<Message> = {}): Message => ({
  id: 'msg_x',
  conversation_id: 'cnv_x',
  role,
  text,
  status: 'complete',
  created_at: '2026-11-26T00:00:00.000Z',
  timings: null,
  error_id: null,
  ...extra,
});

const outcome = (over: Partial<CallOutcome> = {}): CallOutcome => ({
  heard: {
    answers: [
      { turn: 1, text: 'Sure, your table is booked.' },
      { turn: 2, text: 'You are welcome.' },
    ],
    waitsMs: [820, 640],
    transfer: null,
    endReason: 'client_hangup',
  },
  messages: [
    message('user', 'book a table'),
    message('tool', '{"status":"shipped"}', {
      tool_call: { call_id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-17', rush: true }, latency_ms: 5 },
    }),
    message('agent', 'Sure, your table is booked.'),
  ],
  sessionEndReason: 'client_hangup',
  ...over,
});

describe('agent test expectations', () => {
  it('says: a phrase ignoring case and spacing, a pattern, per turn', () => {
    expect(evaluate({ type: 'says', phrase: 'TABLE  is booked' }, outcome()).passed).toBe(true);
    expect(evaluate({ type: 'says', pattern: '^you are' }, outcome()).passed).toBe(true);
    expect(evaluate({ type: 'says', phrase: 'welcome', turn: 1 }, outcome())).toMatchObject({
      passed: false,
      detail: expect.stringContaining('the answer to turn 1'),
    });
    expect(evaluate({ type: 'says', phrase: 'booked', pattern: 'welcome' }, outcome()).passed).toBe(false);
    const silent = outcome({ heard: { ...outcome().heard, answers: [] } });
    expect(evaluate({ type: 'says', phrase: 'x' }, silent).detail).toMatch(/no answer/);
  });

  it('tool_called: by name, arguments as a subset', () => {
    expect(
      evaluate({ type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'A-17' } }, outcome()).passed,
    ).toBe(true);
    expect(
      evaluate({ type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'B' } }, outcome()).passed,
    ).toBe(false);
    expect(evaluate({ type: 'tool_called', name: 'cancel' }, outcome()).detail).toBe(
      'cancel not called (called: lookup_order)',
    );
  });

  it('call_ended and transferred read the end reason and the destination', () => {
    const hung = outcome({ sessionEndReason: 'agent_hangup' });
    expect(evaluate({ type: 'call_ended' }, hung).passed).toBe(true);
    expect(evaluate({ type: 'call_ended' }, outcome()).passed).toBe(false);
    const handed = outcome({
      sessionEndReason: 'transferred',
      heard: { ...outcome().heard, transfer: { to: 'sip:a@b' } },
    });
    expect(evaluate({ type: 'transferred' }, handed).passed).toBe(true);
    expect(evaluate({ type: 'transferred', to: 'sip:a@b' }, handed).passed).toBe(true);
    expect(evaluate({ type: 'transferred', to: 'sip:c@d' }, handed).passed).toBe(false);
    expect(evaluate({ type: 'transferred' }, hung).passed).toBe(false);
  });

  it('wait_under_ms: the longest wait, and a turn with no answer fails', () => {
    expect(evaluate({ type: 'wait_under_ms', ms: 821 }, outcome()).passed).toBe(true);
    expect(evaluate({ type: 'wait_under_ms', ms: 820 }, outcome()).passed).toBe(false);
    const missing = outcome({ heard: { ...outcome().heard, waitsMs: [500, null] } });
    expect(evaluate({ type: 'wait_under_ms', ms: 10_000 }, missing).detail).toMatch(/turn\(s\) 2/);
  });

  it('subset matching is recursive; arrays match whole', () => {
    expect(containsSubset({ a: { b: 1, c: 2 }, d: [1, 2] }, { a: { b: 1 }, d: [1, 2] })).toBe(true);
    expect(containsSubset({ d: [1, 2] }, { d: [1] })).toBe(false);
    expect(containsSubset({ a: null }, { a: null })).toBe(true);
    expect(containsSubset('x', {})).toBe(false);
  });

  it('the transcript names who spoke and the tool calls', () => {
    expect(transcriptOf(outcome())).toBe(
      'Caller: book a table\n[tool lookup_order({"order_id":"A-17","rush":true}) → {"status":"shipped"}]\nAgent: Sure, your table is booked.',
    );
  });
});
