/**
 * Silero VAD v5 on onnxruntime-node, batched: B windows of B streams in one `run`
 * (`input [B, 576]`, `state [2, B, 128]`). Batching is what makes the model cheap: ~65 µs of CPU per
 * window at B ≥ 8 against ~220 µs one at a time. Rows are independent (the model has no
 * cross-batch op), so a stream's probabilities are the same alone and in any batch, within float
 * tolerance (test/unit/vad-batch.test.ts checks it). Runs inside the VAD worker (vad-worker.ts);
 * tests run it directly.
 *
 * The model file is the one shipped in `@livekit/agents-plugin-silero` (no download).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { vadInputSamples, vadSampleRate, vadStateSize } from './silero-format.js';

export interface SileroModelOptions {
  /** Path of the Silero v5 ONNX file; defaults to the one inside @livekit/agents-plugin-silero. */
  modelPath: string;
  /** ONNX Runtime intra-op threads per batch; 1: the batch is small and the main thread needs the other core. */
  intraOpNumThreads: number;
}

export function defaultSileroModelPath(): string {
  const entry = createRequire(import.meta.url).resolve('@livekit/agents-plugin-silero');
  return join(dirname(entry), 'silero_vad.onnx');
}

export class SileroModel {
  readonly #session: InferenceSession;
  readonly #sr = new Tensor('int64', BigInt64Array.from([BigInt(vadSampleRate)]), []);

  private constructor(session: InferenceSession) {
    this.#session = session;
  }

  static async load(options: Partial<SileroModelOptions> = {}): Promise<SileroModel> {
    const session = await InferenceSession.create(options.modelPath ?? defaultSileroModelPath(), {
      intraOpNumThreads: options.intraOpNumThreads ?? 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new SileroModel(session);
  }

  /**
   * Scores `batch` windows: `input` holds `batch` rows of [context 64 | window 512], `state` the RNN
   * states as [2, batch, 128] (h rows, then c rows). Writes the next states into `state` in place
   * and returns one speech probability per row.
   */
  async run(input: Float32Array, state: Float32Array, batch: number): Promise<Float32Array> {
    if (input.length !== batch * vadInputSamples || state.length !== batch * vadStateSize)
      throw new RangeError(`SileroModel.run: buffers do not hold ${batch} rows`);
    const result = await this.#session.run({
      input: new Tensor('float32', input, [batch, vadInputSamples]),
      state: new Tensor('float32', state, [2, batch, vadStateSize / 2]),
      sr: this.#sr,
    });
    state.set(result['stateN']!.data as Float32Array);
    return Float32Array.from(result['output']!.data as Float32Array);
  }

  async close(): Promise<void> {
    await this.#session.release();
  }
}
