import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingPool } from '../../src/rag/embedding/embedding-pool.js';
import { LocalEmbedder } from '../../src/rag/embedding/local-embedder.js';
import { testModelsDir } from '../support/test-models.js';

const modelsDir = resolve(await testModelsDir());
const texts = [
  'The lighthouse keeper trimmed the lamp wick every evening.',
  'Sourdough needs a lively starter and a long, cool proof.',
  'Saturn’s rings are made mostly of water ice.',
  'A clutch transfers torque from the engine to the gearbox.',
  'Honeybees communicate the direction of flowers with a waggle dance.',
];

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

describe('LocalEmbedder with minilm-l6-random in worker threads', () => {
  let embedder: LocalEmbedder;
  beforeAll(async () => {
    embedder = new LocalEmbedder({
      model: 'minilm-l6-random',
      modelDir: resolve(modelsDir, 'minilm-l6-random'),
      workers: 2,
      threadsPerWorker: 1,
      batchSize: 2,
    });
    await embedder.warm();
  });
  afterAll(async () => {
    await embedder?.close();
  });

  it('returns one 384-dimensional unit vector per text', async () => {
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(384);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
    // different texts, different vectors
    expect(Array.from(vectors[0]!)).not.toEqual(Array.from(vectors[1]!));
  });

  it('gives the same vectors batched as one by one', async () => {
    const batched = await embedder.embed(texts);
    const single = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    for (let i = 0; i < texts.length; i++) {
      let dot = 0;
      for (let j = 0; j < 384; j++) dot += batched[i]![j]! * single[i]![j]!;
      // padding changes only rounding (1 - cos 0.00014 on an AMD EPYC's kernels); another text is
      // 0.07 away on this random-weight model
      expect(dot).toBeGreaterThan(0.999);
    }
  });

  it('spreads batches over both worker threads, off the main thread', async () => {
    const before = embedder.pool.stats().map((s) => s.done);
    await embedder.embed([...texts, ...texts, ...texts, ...texts]);
    const stats = embedder.pool.stats();
    expect(stats).toHaveLength(2);
    expect(new Set(stats.map((s) => s.threadId)).size).toBe(2);
    for (const s of stats) expect(s.threadId).toBeGreaterThan(0);
    stats.forEach((s, i) => expect(s.done).toBeGreaterThan(before[i]!));
  });

  it('chunks with the model tokenizer in a worker', async () => {
    const text = 'Alpha beta gamma. '.repeat(100).trim();
    const chunks = await embedder.chunk(text, { maxTokens: 20, overlapTokens: 5 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(text.slice(c.start, c.end)).toBe(c.text);
      expect(c.tokens).toBeLessThanOrEqual(20);
    }
  });
});

describe('EmbeddingPool failures', () => {
  it('rejects tasks when the model folder does not exist, without crashing', async () => {
    const pool = new EmbeddingPool({ size: 1, modelDir: resolve(modelsDir, 'no-such-model'), threads: 1 });
    try {
      await expect(pool.embedBatch(['x'])).rejects.toThrow();
    } finally {
      await pool.close();
    }
  });
});
