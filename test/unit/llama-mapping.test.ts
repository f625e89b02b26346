import { describe, expect, it } from 'vitest';
import { toChatHistory, toFunctions } from '../../src/providers/llama/chat-history.js';
import { toGrammarSchema } from '../../src/providers/llama/json-schema-grammar.js';
import { SequencePool } from '../../src/providers/llama/sequence-pool.js';
import type { ChatMessage } from '../../src/providers/llm.js';

describe('SequencePool', () => {
  it('lends at most its size at once and hands items to waiters in arrival order', async () => {
    const pool = new SequencePool(['a', 'b']);
    const first = await pool.acquire();
    const second = await pool.acquire();
    expect(pool.available).toBe(0);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((i) =>
      pool.acquire().then((lease) => {
        order.push(i);
        return lease;
      }),
    );
    expect(pool.waiting).toBe(3);
    first.release();
    first.release(); // idempotent: gives back once
    const w1 = await waiters[0]!;
    expect(w1.item).toBe('a');
    second.release();
    w1.release();
    await Promise.all(waiters.slice(1));
    expect(order).toEqual([1, 2, 3]);
    expect(pool.waiting).toBe(0);
  });

  it('an aborted waiter leaves the queue with the reason and never takes an item', async () => {
    const pool = new SequencePool([1]);
    const held = await pool.acquire();
    const abort = new AbortController();
    const gone = pool.acquire(abort.signal);
    const next = pool.acquire();
    abort.abort(new Error('barge-in'));
    await expect(gone).rejects.toThrow('barge-in');
    expect(pool.waiting).toBe(1);
    held.release();
    expect((await next).item).toBe(1);
    await expect(pool.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('close fails the waiters and later requests', async () => {
    const pool = new SequencePool([1]);
    await pool.acquire();
    const waiting = pool.acquire();
    pool.close(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    await expect(pool.acquire()).rejects.toThrow('closed');
  });
});

describe('toGrammarSchema', () => {
  it('keeps what a grammar can hold and drops the rest', () => {
    expect(
      toGrammarSchema({
        type: 'object',
        description: 'args',
        properties: {
          city: { type: 'string', enum: ['paris', 'rome'] },
          when: { type: 'string', format: 'date' },
          note: { type: 'string', maxLength: 40, pattern: '^[a-z]+$' },
          count: { type: 'integer', minimum: 1 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          either: { anyOf: [{ type: 'number' }, { type: 'null' }] },
          nullable: { type: ['string', 'null'] },
          fixed: { const: 'x' },
        },
        required: ['city'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      description: 'args',
      properties: {
        city: { enum: ['paris', 'rome'] },
        when: { type: 'string', format: 'date' },
        note: { type: 'string', minLength: undefined, maxLength: 40 },
        count: { type: 'integer' },
        tags: {
          type: 'array',
          items: { type: 'string', minLength: undefined, maxLength: undefined },
          minItems: undefined,
          maxItems: 3,
        },
        either: { oneOf: [{ type: 'number' }, { type: 'null' }] },
        nullable: { type: ['string', 'null'] },
        fixed: { const: 'x' },
      },
      additionalProperties: false,
    });
  });

  it('an object without properties takes any keys; an unknown schema any value', () => {
    expect(toGrammarSchema({ type: 'object' })).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(toGrammarSchema({ type: 'object', additionalProperties: false })).toMatchObject({
      additionalProperties: false,
    });
    expect(toGrammarSchema({ $ref: '#/definitions/x' })).toHaveProperty('oneOf');
  });
});

describe('toChatHistory', () => {
  it('maps roles, joins a tool round and its answer into one model response, attaches results by call id', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: '{"city":"paris"}' },
          { id: 'c2', name: 'get_weather', arguments: 'not json' },
        ],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'sunny' },
      { role: 'tool', tool_call_id: 'c1', content: '{"c":21}' },
      { role: 'tool', tool_call_id: 'unknown', content: 'dropped' },
      { role: 'assistant', content: 'Both fine.' },
      { role: 'user', content: 'Thanks' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'Weather in Paris and Rome?' },
      {
        type: 'model',
        response: [
          'Checking.',
          {
            type: 'functionCall',
            name: 'get_weather',
            params: { city: 'paris' },
            result: { c: 21 },
            startsNewChunk: true,
          },
          { type: 'functionCall', name: 'get_weather', params: 'not json', result: 'sunny', startsNewChunk: false },
          'Both fine.',
        ],
      },
      { type: 'user', text: 'Thanks' },
    ]);
  });

  it('toFunctions documents each tool with its grammar schema', () => {
    expect(
      toFunctions([{ name: 'hang_up', description: 'End the call.', parameters: { type: 'object', properties: {} } }]),
    ).toEqual({
      hang_up: { description: 'End the call.', params: { type: 'object', properties: {}, additionalProperties: true } },
    });
  });
});
