import { describe, expect, it } from 'vitest';
import { judge } from '../../src/agent-tests/judge.js';
import type { LlmProvider, LlmRequest } from '../../src/providers/llm.js';

/** The LLM seam: answers with `reply` (or fails), and keeps what it was asked. */
function model(reply: string | Error) {
  const asked: LlmRequest[] = [];
  const provider: LlmProvider = {
    label: 'scripted',
    complete: async (request) => {
      asked.push(request);
      if (reply instanceof Error) throw reply;
      return reply;
    },
    stream: () => {
      throw new Error('not used');
    },
    streamWithTools: () => {
      throw new Error('not used');
    },
  };
  const llm = { provider: 'openai' as const, model: 'm', temperature: 0.7, max_tokens: 512 };
  return { asked, model: { llm, provider, timeoutMs: 1000 } };
}

describe('the judge', () => {
  it('passes on yes, fails on no, with the transcript and question put to the model', async () => {
    const yes = model('Yes, it did.');
    expect(await judge(yes.model, 'Was it polite?', 'Caller: hi\nAgent: hello')).toMatchObject({
      type: 'judge',
      passed: true,
    });
    expect(yes.asked[0]!.messages.at(-1)!.content).toBe(
      'Transcript:\nCaller: hi\nAgent: hello\n\nQuestion: Was it polite?',
    );
    expect(yes.asked[0]!.temperature).toBe(0);
    expect((await judge(model('no.').model, 'q', 't')).passed).toBe(false);
    expect((await judge(model('<think>hmm, yes or no</think>\nNo').model, 'q', 't')).passed).toBe(false);
  });

  it('fails, saying why, on an unclear answer or a model error', async () => {
    expect(await judge(model('Perhaps').model, 'q', 't')).toMatchObject({
      passed: false,
      detail: 'the judge answered neither yes nor no: "Perhaps"',
    });
    expect((await judge(model(new Error('connection refused')).model, 'q', 't')).detail).toMatch(
      /failed: connection refused/,
    );
  });
});
