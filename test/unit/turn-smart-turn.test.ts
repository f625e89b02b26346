import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmartTurnFeatures } from '../../src/pipeline/turn/smart-turn-features.js';
import { SmartTurnModel, smartTurnFile, smartTurnModelId } from '../../src/pipeline/turn/smart-turn.js';
import { readWav } from '../../src/audio/wav.js';

/** Random weights, Smart Turn v3's input and output (scripts/smart-turn-random-model.py). */
const fixtureModel = new URL('../fixtures/models/smart-turn-random.onnx', import.meta.url).pathname;
const audio = (name: string) => readWav(new URL(`../fixtures/audio/${name}`, import.meta.url).pathname);

/** Starting a worker from TypeScript source is slow on a busy machine. */
describe('SmartTurnModel', { timeout: 60_000 }, () => {
  let modelsDir: string;
  let model: SmartTurnModel;

  beforeAll(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'parley-smart-turn-'));
    await mkdir(join(modelsDir, smartTurnModelId), { recursive: true });
    await copyFile(fixtureModel, join(modelsDir, smartTurnModelId, smartTurnFile));
    const loaded = await SmartTurnModel.load(modelsDir);
    expect(loaded).not.toBeNull();
    model = loaded!;
  });

  afterAll(async () => {
    await model?.close();
    await rm(modelsDir, { recursive: true, force: true });
  });

  it('is absent (null) when MODELS_DIR has no Smart Turn file', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'parley-no-smart-turn-'));
    try {
      expect(await SmartTurnModel.load(empty)).toBeNull();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('answers what the model says on the features of the audio (checked against a direct run)', async () => {
    const { samples } = await audio('hello.wav');
    const probability = await model.endOfTurn(samples);
    expect(probability).toBeGreaterThan(0);
    expect(probability).toBeLessThan(1);

    const session = await InferenceSession.create(fixtureModel);
    try {
      const input = new SmartTurnFeatures().compute(samples);
      const out = await session.run({ input_features: new Tensor('float32', input, [1, 80, 800]) });
      expect(probability).toBeCloseTo((out['logits']!.data as Float32Array)[0]!, 6);
    } finally {
      await session.release();
    }
  });

  it('reads the audio: other speech, another probability; the same speech, the same one', async () => {
    const hello = (await audio('hello.wav')).samples;
    const other = (await audio('interrupt.wav')).samples;
    const [a, b, c] = [await model.endOfTurn(hello), await model.endOfTurn(other), await model.endOfTurn(hello)];
    expect(a).toBe(c);
    expect(b).not.toBe(a);
  });

  it('counts checks and what they cost', async () => {
    const before = model.stats().checks;
    const check = await model.check((await audio('hello.wav')).samples);
    expect(check.featuresMs).toBeGreaterThan(0);
    expect(check.inferenceMs).toBeGreaterThan(0);
    expect(model.stats().checks).toBe(before + 1);
  });

  it('leaves the caller’s audio alone and honours an abort', async () => {
    const { samples } = await audio('hello.wav');
    const copy = samples.slice();
    await model.endOfTurn(samples);
    expect(samples).toEqual(copy);
    const abort = new AbortController();
    abort.abort(new Error('user went on'));
    await expect(model.endOfTurn(samples, abort.signal)).rejects.toThrow('user went on');
  });

  it('refuses a file that is not a Smart Turn model, saying which', async () => {
    const bogus = join(modelsDir, 'bogus.onnx');
    await writeFile(bogus, 'not a model');
    await expect(SmartTurnModel.open(bogus)).rejects.toThrow(/bogus\.onnx did not load/);
  });
});
