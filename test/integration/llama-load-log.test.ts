import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { SharedLlamaModel } from '../../src/providers/llama/shared-llama-model.js';
import { llmProviders, loadedModelLine } from '../../src/providers/llm-providers.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { writeTinyGgufs, type TinyGgufs } from '../support/tiny-gguf.js';

/**
 * The line an operator reads to know whether local-llama runs on a GPU: one `info` per loaded
 * model, from real node-llama-cpp on the random-weight GGUF of scripts/make-tiny-gguf.ts.
 */

let ggufs: TinyGgufs;
beforeAll(async () => {
  ggufs = await writeTinyGgufs();
});
afterAll(async () => {
  await SharedLlamaModel.closeAll();
  await ggufs?.remove();
});

describe('where a local-llama model runs', () => {
  it('logs once, on load, that a model held on the CPU (PARLEY_LLAMA_GPU=off) runs on the CPU', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      MODELS_DIR: ggufs.dir,
      PARLEY_LLAMA_GPU: 'off',
      PARLEY_LLAMA_THREADS: '1',
      PARLEY_LLAMA_SEQUENCES: '1',
    });
    const registry = new ProviderRegistry(config, { manifest: { version: 1, models: [] }, modelScanMs: 0 });
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const llm = llmProviders(config, registry, logger).llm({
      provider: 'local-llama',
      model: 'tiny-random-qwen2.gguf',
      temperature: 0,
      max_tokens: 4,
    });
    const ask = () =>
      llm.complete({
        model: 'tiny-random-qwen2.gguf',
        messages: [{ role: 'user', content: 'Hello' }],
        temperature: 0,
        maxTokens: 4,
        timeoutMs: 30_000,
      });
    await ask();
    await ask();
    const loaded = lines.filter((l) => typeof l['msg'] === 'string' && l['msg'].includes('loaded on'));
    expect(loaded).toEqual([
      expect.objectContaining({
        level: 30,
        provider: 'local-llama',
        path: ggufs.random,
        gpu: false,
        gpuLayers: 0,
        msg: 'local-llama: tiny-random-qwen2.gguf loaded on the CPU',
      }),
    ]);
  });

  it('names the GPU type and the layers offloaded when the runtime has one', () => {
    expect(loadedModelLine({ path: '/models/Qwen/q4.gguf', gpu: 'cuda', gpuLayers: 25 })).toBe(
      'local-llama: q4.gguf loaded on the GPU (cuda, 25 layers offloaded)',
    );
  });
});
