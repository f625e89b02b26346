import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/schemas/conversation.js';
import { toLlmHistory } from '../../src/respond/history.js';
import { toolsSchema, toolUrlProblem } from '../../src/schemas/tool-settings.js';

describe('tool URL policy', () => {
  it('takes https anywhere, http only to loopback addresses unless allowed', () => {
    expect(toolUrlProblem('https://tools.example.com/x', false)).toBeNull();
    for (const local of ['http://127.0.0.1:8080/x', 'http://127.1.2.3/x', 'http://localhost/x', 'http://[::1]:9/x'])
      expect(toolUrlProblem(local, false)).toBeNull();
    expect(toolUrlProblem('http://tools.internal:8080/x', false)).toMatch(/https/);
    expect(toolUrlProblem('http://127.0.0.1.evil.example/x', false)).toMatch(/https/);
    expect(toolUrlProblem('http://tools.internal:8080/x', true)).toBeNull();
  });
});

describe('tools schema', () => {
  const tool = { name: 'a', description: 'd', parameters: { type: 'object' }, url: 'https://x.example/t' };

  it('fills defaults', () => {
    expect(toolsSchema.parse([tool])).toEqual([{ ...tool, timeout_ms: 5000, slow_phrase: null }]);
  });

  it('refuses a schema ajv cannot compile, with its reason', () => {
    const result = toolsSchema.safeParse([{ ...tool, parameters: { type: 'object', required: 'x' } }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({
      path: [0, 'parameters'],
      message: expect.stringMatching(/required/),
    });
  });
});

describe('history for the model', () => {
  const msg = (m: Partial<Message>): Message => ({
    id: 'msg_x',
    conversation_id: 'cnv_x',
    role: 'user',
    text: '',
    status: 'complete',
    created_at: '2026-01-01T00:00:00.000Z',
    timings: null,
    error_id: null,
    ...m,
  });

  it('turns each run of tool messages into the assistant’s calls followed by their results', () => {
    const history = toLlmHistory([
      msg({ role: 'user', text: 'Where are A and B?' }),
      msg({
        role: 'tool',
        text: '{"at":"home"}',
        tool_call: { call_id: 'c1', name: 'find', arguments: { id: 'A' }, result: { at: 'home' }, latency_ms: 1 },
      }),
      msg({
        role: 'tool',
        status: 'failed',
        text: '{"error":"not JSON"}',
        tool_call: {
          call_id: 'c2',
          name: 'find',
          arguments: '{"id":',
          error: { code: 'bad_arguments', message: 'x' },
          latency_ms: 0,
        },
      }),
      msg({ role: 'agent', text: 'A is home.' }),
      msg({ role: 'agent', status: 'failed', text: '' }),
    ]);
    expect(history).toEqual([
      { role: 'user', content: 'Where are A and B?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', name: 'find', arguments: '{"id":"A"}' },
          { id: 'c2', name: 'find', arguments: '{"id":' },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"at":"home"}' },
      { role: 'tool', tool_call_id: 'c2', content: '{"error":"not JSON"}' },
      { role: 'assistant', content: 'A is home.' },
    ]);
  });
});
