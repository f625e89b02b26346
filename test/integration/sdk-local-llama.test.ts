import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { writeTinyGgufs, type TinyGgufs } from '../support/tiny-gguf.js';

/**
 * Enhanced mode with no network at all: a preset names LLM provider `local-llama` with a GGUF file
 * of the operator's own under MODELS_DIR, the random-weight fixture (no OPENAI_* set). The
 * tool-eager fixture calls a tool every round, so the whole tool loop runs through the model.
 */

const modelId = 'random/tiny-random-qwen2.gguf';
const eagerId = 'eager/tiny-random-qwen2-tool-eager.gguf';

let ggufs: TinyGgufs;
let models: string;
let redis: TestRedis;
let tools: HttpReceiver;
let p: TestParley;

beforeAll(async () => {
  ggufs = await writeTinyGgufs();
  models = await mkdtemp(join(tmpdir(), 'parley-llama-models-'));
  await mkdir(join(models, 'random'));
  await mkdir(join(models, 'eager'));
  await copyFile(ggufs.random, join(models, modelId));
  await copyFile(ggufs.toolEager, join(models, eagerId));
  redis = await TestRedis.start();
  tools = await HttpReceiver.start();
  p = await startParley(redis, {
    MODELS_DIR: models,
    PARLEY_RATE_LIMIT_BURST: '10000',
    PARLEY_LLAMA_THREADS: '1',
    PARLEY_LLAMA_CONTEXT_SIZE: '2048',
  });
});
afterAll(async () => {
  await p?.close();
  await tools?.close();
  await redis?.close();
  await ggufs?.remove();
  if (models !== undefined) await rm(models, { recursive: true, force: true });
});
beforeEach(async () => {
  await redis.flush();
  tools.requests.length = 0;
});

async function localPreset(maxTokens: number): Promise<string> {
  const res = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'Offline', llm: { provider: 'local-llama', model: modelId, temperature: 0, max_tokens: maxTokens } },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('enhanced chat on local-llama', () => {
  it('is listed as configured, with every GGUF file under MODELS_DIR by its path', async () => {
    const res = await p.request('GET', '/admin/v1/presets/available?capability=llm');
    expect(res.body.data.find((d: { provider: string }) => d.provider === 'local-llama')).toMatchObject({
      configured: true,
      reason: null,
      models: [eagerId, modelId],
      any_model: false,
    });
    const health = await p.request('GET', '/health/providers', { apiKey: null });
    expect(health.body.providers.find((c: { provider: string }) => c.provider === 'local-llama')).toMatchObject({
      status: 'ok',
      detail: `installed: ${eagerId}, ${modelId}`,
    });
  });

  it('answers with the local model', async () => {
    const agent = await createAgent(p, { mode: 'enhanced', preset_id: await localPreset(16) });
    const res = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.agent_token, message: 'Hello there' },
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.response).toBe('string');
    expect(res.body.response.length).toBeGreaterThan(0);
  });
});

describe('tools through the model', () => {
  let eager: TestParley;
  beforeAll(async () => {
    eager = await startParley(redis, {
      MODELS_DIR: models,
      PARLEY_RATE_LIMIT_BURST: '10000',
      PARLEY_LLAMA_THREADS: '1',
      PARLEY_LLAMA_CONTEXT_SIZE: '4096',
    });
  });
  afterAll(async () => {
    await eager?.close();
  });

  it('runs the calls the model makes and sends their results back, round after round', async () => {
    const preset = await eager.request('POST', '/admin/v1/presets', {
      body: { name: 'Offline tools', llm: { provider: 'local-llama', model: eagerId, temperature: 0, max_tokens: 64 } },
    });
    const agent = await createAgent(eager, {
      mode: 'enhanced',
      preset_id: preset.body.id,
      tools: [
        {
          name: 'set_size',
          description: 'Choose a size.',
          parameters: { type: 'object', properties: { size: { type: 'string', enum: ['small', 'large'] } } },
          url: `${tools.url}/size`,
        },
      ],
    });
    tools.respond = () => ({ body: { ok: true } });
    const res = await eager.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.agent_token, message: 'A coffee please' },
    });
    expect(res.status).toBe(200);
    // This model calls a tool in every round it may: the loop's 5 rounds, then a last one in text.
    expect(tools.requests).toHaveLength(5);
    for (const r of tools.requests) {
      const call = r.json as { tool: string; call_id: string; arguments: { size: string } };
      expect(call.tool).toBe('set_size');
      expect(['small', 'large']).toContain(call.arguments.size);
    }
    expect(new Set(tools.requests.map((r) => (r.json as { call_id: string }).call_id)).size).toBe(5);
    expect(res.body.response.length).toBeGreaterThan(0);
  });
});
