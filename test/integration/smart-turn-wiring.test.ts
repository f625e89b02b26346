import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmartTurnModel, smartTurnFile, smartTurnModelId } from '../../src/pipeline/turn/smart-turn.js';
import { startParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

const fixtureModel = new URL('../fixtures/models/smart-turn-random.onnx', import.meta.url).pathname;

/** Parley loads the optional Smart Turn model from MODELS_DIR at start, and runs without it. */
describe('Smart Turn model at start', { timeout: 60_000 }, () => {
  let redis: TestRedis;
  let dir: string;

  beforeAll(async () => {
    redis = await TestRedis.start();
    dir = await mkdtemp(join(tmpdir(), 'parley-models-'));
  });
  afterAll(async () => {
    await redis?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function modelsDirWith(content: 'model' | 'garbage' | 'nothing'): Promise<string> {
    const modelsDir = join(dir, content);
    await mkdir(join(modelsDir, smartTurnModelId), { recursive: true });
    const file = join(modelsDir, smartTurnModelId, smartTurnFile);
    if (content === 'model') await copyFile(fixtureModel, file);
    if (content === 'garbage') await writeFile(file, 'not an onnx file');
    return modelsDir;
  }

  it('loads it when its file is there, and the services share it', async () => {
    const p = await startParley(redis, { MODELS_DIR: await modelsDirWith('model') });
    try {
      const model = p.parley.services.endOfTurnModel;
      expect(model).toBeInstanceOf(SmartTurnModel);
      const probability = await model!.endOfTurn(new Int16Array(16_000));
      expect(probability).toBeGreaterThanOrEqual(0);
      expect(probability).toBeLessThanOrEqual(1);
    } finally {
      await p.close();
    }
  });

  it('starts without it when the file is absent or does not load', async () => {
    for (const content of ['nothing', 'garbage'] as const) {
      const p = await startParley(redis, { MODELS_DIR: await modelsDirWith(content) });
      try {
        expect(p.parley.services.endOfTurnModel).toBeNull();
        expect((await p.request('GET', '/health')).status).toBe(200);
      } finally {
        await p.close();
      }
    }
  });
});
