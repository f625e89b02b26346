import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LlmDelta, LlmToolRequest } from '../../src/providers/llm.js';
import { OpenAiLlm } from '../../src/providers/openai/openai-llm.js';
import { FaultUpstream, laneTool } from '../support/fault-upstream.js';

/**
 * OpenAiLlm against a streaming server cut short by the caller. The openai SDK ends an aborted
 * stream quietly, as if it were complete: what had come of a tool call (its name, half its
 * arguments) must not come out as a call to run, and the text stream must not read as a whole answer.
 */

let upstream: FaultUpstream;

beforeAll(async () => {
  // the answer drips in 16 pieces 200 ms apart (3.2 s): an abort 2 s in lands after the tool's
  // name and some of its arguments (about 6 pieces in), well before the end
  upstream = await FaultUpstream.start({ dripGapMs: 200 });
});

afterAll(async () => {
  await upstream?.close();
});

function request(signal: AbortSignal): LlmToolRequest {
  return {
    model: upstream.model('abort'),
    messages: [{ role: 'user', content: 'Where is my order?' }],
    temperature: 0,
    maxTokens: 100,
    tools: [laneTool],
    toolChoice: 'auto',
    signal,
    timeoutMs: 30_000,
  };
}

async function abortMidway<T>(
  stream: (signal: AbortSignal) => AsyncIterable<T>,
): Promise<{ got: T[]; error: unknown }> {
  const abortAfterMs = 2_000;
  const controller = new AbortController();
  const calls = upstream.callsOf('abort', 'llm').length;
  upstream.inject('abort', 'llm', 'drip');
  const got: T[] = [];
  const done = (async () => {
    for await (const delta of stream(controller.signal)) got.push(delta);
  })().then(
    () => null,
    (err: unknown) => err,
  );
  await upstream.until(() => upstream.callsOf('abort', 'llm').length > calls, 5_000, 'the chat completion');
  await new Promise((r) => setTimeout(r, abortAfterMs));
  controller.abort(new Error('barge-in'));
  return { got, error: await done };
}

it('an aborted tool round yields no tool call, and throws the abort', async () => {
  const llm = new OpenAiLlm({ apiKey: 'sk-test', baseUrl: upstream.baseUrl });
  const { got, error } = await abortMidway<LlmDelta>((signal) => llm.streamWithTools(request(signal)));
  expect(got.filter((d) => d.type === 'tool_calls')).toEqual([]);
  expect(error).toEqual(new Error('barge-in'));
});

it('an aborted text stream throws the abort instead of ending as if whole', async () => {
  const llm = new OpenAiLlm({ apiKey: 'sk-test', baseUrl: upstream.baseUrl });
  const { got, error } = await abortMidway<string>((signal) =>
    llm.stream({ ...request(signal), tools: undefined } as never),
  );
  expect(got.join('')).not.toBe('Fine, thanks. All is well here.');
  expect(error).toEqual(new Error('barge-in'));
});
