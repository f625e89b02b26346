import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlamaLlm } from '../../src/providers/llama/llama-llm.js';
import { toChatHistory, toFunctions } from '../../src/providers/llama/chat-history.js';
import { SharedLlamaModel } from '../../src/providers/llama/shared-llama-model.js';
import type { ChatMessage, LlmDelta, LlmRequest, LlmToolDefinition } from '../../src/providers/llm.js';
import { LlmProviders } from '../../src/providers/llm-providers.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { loadConfig } from '../../src/config/config.js';
import { describeLlmError } from '../../src/respond/answer-failure.js';
import { writeTinyGgufs, type TinyGgufs } from '../support/tiny-gguf.js';

/**
 * LLM provider local-llama on real node-llama-cpp (prebuilt CPU binaries) with the random-weight
 * GGUF of scripts/make-tiny-gguf.ts: loading, streaming, aborts, the sequence bound and the
 * function-call plumbing. What the model says is gibberish and is never checked.
 */

let ggufs: TinyGgufs;
beforeAll(async () => {
  ggufs = await writeTinyGgufs();
});
afterAll(async () => {
  await SharedLlamaModel.closeAll();
  await ggufs?.remove();
});

/**
 * The registry of a MODELS_DIR holding the fixtures, which also stands in for the Qwen catalog
 * model's folder; the manifest pins nothing (the fixture is not Qwen's file), and every check
 * rescans (modelScanMs 0).
 */
function registryIn(dir: string): ProviderRegistry {
  return new ProviderRegistry(loadConfig({ NODE_ENV: 'test', MODELS_DIR: dir }), {
    modelAliases: { 'Qwen/Qwen2.5-0.5B-Instruct-GGUF': dir },
    manifest: { version: 1, models: [] },
    modelScanMs: 0,
  });
}

/** One llama.cpp thread: the fixture is tiny, and more threads than free cores only spin. */
const base = { threads: 1, contextSize: 4096, sequences: 4, gpu: 'auto' as const };

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: 'tiny',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Tell me a long story.' },
    ],
    temperature: 0,
    maxTokens: 24,
    timeoutMs: 30_000,
    ...overrides,
  };
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

const weather: LlmToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', enum: ['paris', 'rome'], description: 'Where.' } },
    required: ['city'],
  },
};
const hangUp: LlmToolDefinition = { name: 'hang_up', description: 'End the call.', parameters: { type: 'object' } };

describe('loading', () => {
  it('loads one model per file, shared by every provider and request', async () => {
    const a = new LlamaLlm(ggufs.random, base);
    const b = new LlamaLlm(ggufs.random, base);
    const [ma, mb] = await Promise.all([a.loaded(), b.loaded()]);
    expect(ma).toBe(mb);
    expect(ma.pool.size).toBe(4);
    expect(ma.chatWrapper.wrapperName).toBe('Qwen');
    await Promise.all([a.complete(request()), b.complete(request())]);
    expect(await a.loaded()).toBe(ma);
  });

  it('LlmProviders picks the implementation by provider and shares one per model', () => {
    const llms = new LlmProviders(
      { openai: { apiKey: 'sk-x', baseUrl: undefined }, llama: base },
      registryIn(ggufs.dir),
    );
    const local = { provider: 'local-llama', model: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF', temperature: 0, max_tokens: 8 };
    expect(llms.llm(local).label).toBe('local-llama');
    expect(llms.llm(local)).toBe(llms.llm({ ...local }));
    expect(llms.llm({ ...local, provider: 'openai', model: 'gpt-4o-mini' }).label).toBe('openai');
    expect(() => llms.llm({ ...local, provider: 'espeak' })).toThrow(ProviderError);
    expect(() => llms.llm({ ...local, model: '../outside.gguf' })).toThrow(
      'local-llama: unknown model ../outside.gguf',
    );
  });

  it('LlmProviders loads a .gguf file under MODELS_DIR named by its relative path', async () => {
    const llms = new LlmProviders(
      { openai: { apiKey: undefined, baseUrl: undefined }, llama: base },
      registryIn(ggufs.dir),
    );
    const own = llms.llm({ provider: 'local-llama', model: 'tiny-random-qwen2.gguf', temperature: 0, max_tokens: 8 });
    expect(own).toBeInstanceOf(LlamaLlm);
    expect((own as LlamaLlm).modelPath).toBe(ggufs.random);
    expect((await own.complete(request())).length).toBeGreaterThan(0);
  });

  it('a missing file is a ProviderError naming the file and npm run models, and a later load retries', async () => {
    const llms = new LlmProviders(
      { openai: { apiKey: undefined, baseUrl: undefined }, llama: base },
      registryIn(ggufs.dir),
    );
    const llm = llms.llm({
      provider: 'local-llama',
      model: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
      temperature: 0,
      max_tokens: 8,
    });
    const path = join(ggufs.dir, 'qwen2.5-0.5b-instruct-q4_k_m.gguf');
    const err = await llm.complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).provider).toBe('local-llama');
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain('npm run models');
    expect(describeLlmError(err, 30_000).type).toBe('llm_not_configured');

    await writeFile(path, await import('node:fs/promises').then((fs) => fs.readFile(ggufs.random)));
    expect((await llm.complete(request())).length).toBeGreaterThan(0);
  });

  it('a file that is not a GGUF model is a ProviderError saying it did not load', async () => {
    const bogus = join(ggufs.dir, 'bogus.gguf');
    await writeFile(bogus, 'not a model');
    const err = await new LlamaLlm(bogus, base).complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/^local-llama: model .*bogus\.gguf did not load: /);
  });
});

describe('generation', () => {
  it('streams the answer in several chunks, and complete() is the same text', async () => {
    const llm = new LlamaLlm(ggufs.random, base);
    const chunks = await collect(llm.stream(request({ maxTokens: 32 })));
    expect(chunks.length).toBeGreaterThanOrEqual(8);
    expect(chunks.every((c) => c.length > 0)).toBe(true);
    // Temperature 0 is greedy decoding: the same prompt gives the same text.
    expect(await llm.complete(request({ maxTokens: 32 }))).toBe(chunks.join(''));
  });

  it('honours maxTokens and samples with a temperature', async () => {
    const llm = new LlamaLlm(ggufs.random, base);
    // Every chunk holds at least one token (several when they form one character).
    const short = await collect(llm.stream(request({ maxTokens: 5 })));
    expect(short.length).toBeGreaterThan(0);
    expect(short.length).toBeLessThanOrEqual(5);
    const long = await llm.complete(request({ maxTokens: 40 }));
    expect(long.startsWith(short.join(''))).toBe(true);
    expect(long.length).toBeGreaterThan(short.join('').length);
    const hot = await Promise.all([1, 2, 3].map(() => llm.complete(request({ maxTokens: 40, temperature: 1.5 }))));
    expect(new Set([long, ...hot]).size).toBeGreaterThan(1);
  });

  it('an abort mid-stream ends it promptly with the abort reason and frees the sequence', async () => {
    const llm = new LlamaLlm(ggufs.random, { ...base, sequences: 1 });
    const { pool } = await llm.loaded();
    const abort = new AbortController();
    const reason = new Error('barge-in');
    let chunks = 0;
    let abortedAt = 0;
    const err = await (async () => {
      for await (const _ of llm.stream(request({ maxTokens: 2_000, signal: abort.signal }))) {
        if (++chunks === 3) {
          abortedAt = performance.now();
          abort.abort(reason);
        }
      }
    })().catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(pool.available).toBe(1);
    expect((await llm.complete(request())).length).toBeGreaterThan(0);
  });

  it('a reader that stops early (break) frees the sequence', async () => {
    const llm = new LlamaLlm(ggufs.random, { ...base, sequences: 1 });
    const { pool } = await llm.loaded();
    for await (const _ of llm.stream(request({ maxTokens: 2_000 }))) break;
    expect(pool.available).toBe(1);
    expect((await llm.complete(request())).length).toBeGreaterThan(0);
  });

  it('times out as a ProviderError the responder records as llm_timeout', async () => {
    const llm = new LlamaLlm(ggufs.random, base);
    await llm.loaded();
    const err = await llm.complete(request({ maxTokens: 100_000, timeoutMs: 150 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toBe('local-llama: timed out after 150 ms');
    expect(describeLlmError(err, 150).type).toBe('llm_timeout');
  });
});

describe('the sequence bound', () => {
  it('runs more requests than sequences, at most `sequences` at once, the rest in order', async () => {
    const llm = new LlamaLlm(ggufs.random, { ...base, sequences: 2 });
    const { pool } = await llm.loaded();
    let active = 0;
    let most = 0;
    let mostWaiting = 0;
    const started: number[] = [];
    const run = async (i: number) => {
      let first = true;
      for await (const _ of llm.stream(request({ maxTokens: 60 }))) {
        if (first) {
          first = false;
          started.push(i);
          active += 1;
          most = Math.max(most, active);
        }
        mostWaiting = Math.max(mostWaiting, pool.waiting);
      }
      active -= 1;
    };
    await Promise.all([0, 1, 2, 3, 4, 5].map(run));
    expect(started.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
    expect(mostWaiting).toBeGreaterThan(0);
    expect(pool.available).toBe(2);
  });

  it('a request aborted while it waits leaves the queue at once and never runs', async () => {
    const llm = new LlamaLlm(ggufs.random, { ...base, sequences: 1 });
    const { pool } = await llm.loaded();
    const holder = llm.complete(request({ maxTokens: 400 }));
    await new Promise((r) => setTimeout(r, 20));
    const abort = new AbortController();
    const waiting = llm.complete(request({ signal: abort.signal }));
    await new Promise((r) => setTimeout(r, 20));
    expect(pool.waiting).toBe(1);
    abort.abort(new Error('hung up'));
    await expect(waiting).rejects.toThrow('hung up');
    expect(pool.waiting).toBe(0);
    expect((await holder).length).toBeGreaterThan(0);
    expect(pool.available).toBe(1);
  });

  it('keeps the event loop responsive while generating', async () => {
    const llm = new LlamaLlm(ggufs.random, base);
    await llm.loaded();
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 10);
    const start = performance.now();
    try {
      await Promise.all([llm.complete(request({ maxTokens: 400 })), llm.complete(request({ maxTokens: 400 }))]);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - start;
    // A 10 ms timer keeps firing: at least a quarter of the ticks a free loop would see.
    expect(elapsed).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 10 / 4));
  });
});

describe('tools', () => {
  const ask: ChatMessage[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the weather in Paris?' },
  ];

  it('hands a function call the model made back as an LlmToolCall, without running it', async () => {
    const llm = new LlamaLlm(ggufs.toolEager, base);
    const deltas = await collect(
      llm.streamWithTools({
        ...request({ messages: ask, maxTokens: 200 }),
        tools: [weather, hangUp],
        toolChoice: 'auto',
      }),
    );
    const last = deltas.at(-1);
    expect(last?.type).toBe('tool_calls');
    const calls = (last as Extract<LlmDelta, { type: 'tool_calls' }>).calls;
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) {
      expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
      expect(['get_weather', 'hang_up']).toContain(call.name);
      const args: unknown = JSON.parse(call.arguments);
      if (call.name === 'get_weather') expect(['paris', 'rome']).toContain((args as { city: string }).city);
      else expect(args).toEqual({});
    }
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
  });

  it('sends results back as the next round, and answers in text with toolChoice none', async () => {
    const llm = new LlamaLlm(ggufs.toolEager, base);
    const first = await collect(
      llm.streamWithTools({ ...request({ messages: ask, maxTokens: 200 }), tools: [weather], toolChoice: 'auto' }),
    );
    const calls = (first.at(-1) as Extract<LlmDelta, { type: 'tool_calls' }>).calls;
    const messages: ChatMessage[] = [
      ...ask,
      { role: 'assistant', content: '', tool_calls: calls },
      ...calls.map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: '{"temperature_c":21}' })),
    ];
    const second = await collect(
      llm.streamWithTools({ ...request({ messages, maxTokens: 16 }), tools: [weather], toolChoice: 'none' }),
    );
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((d) => d.type === 'text')).toBe(true);

    // The model's own chat wrapper renders the tools, the call and its result (Qwen's format).
    const { chatWrapper } = await llm.loaded();
    const { contextText } = chatWrapper.generateContextState({
      chatHistory: toChatHistory(messages),
      availableFunctions: toFunctions([weather]),
    });
    const prompt = contextText.toString();
    expect(prompt).toContain('"name": "get_weather", "description": "The weather in a city."');
    expect(prompt).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": ');
    expect(prompt).toContain('<tool_response>\n{"temperature_c": 21}\n</tool_response>');
    expect(prompt.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('the random model, offered tools, answers in text', async () => {
    const llm = new LlamaLlm(ggufs.random, base);
    const deltas = await collect(
      llm.streamWithTools({ ...request({ messages: ask, maxTokens: 24 }), tools: [weather], toolChoice: 'auto' }),
    );
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.type === 'text')).toBe(true);
  });
});
