/**
 * Silero VAD v5 on onnxruntime-node: one InferenceSession per process, shared by every stream.
 * Each stream keeps its own RNN state and context. onnxruntime-node runs inference synchronously on
 * the JS thread (its `run` only defers the call with setImmediate); a 32 ms window costs ~0.2 ms, so
 * one process's VAD capacity is bounded by one core (bench/voice.ts measures it).
 *
 * The model file is the one shipped in `@livekit/agents-plugin-silero` (no download).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { VadOptions } from './options.js';
import { vadContextSamples, vadSampleRate, vadStateSize, vadWindowSamples, type SileroState } from './silero-format.js';
import { VadStream } from './vad-stream.js';

export interface SileroVadLoadOptions {
  /** Path of the Silero v5 ONNX file; defaults to the one inside @livekit/agents-plugin-silero. */
  modelPath: string;
  /** ONNX Runtime intra-op threads per inference; 1 is right for 512-sample windows. */
  intraOpNumThreads: number;
}

export function defaultSileroModelPath(): string {
  const entry = createRequire(import.meta.url).resolve('@livekit/agents-plugin-silero');
  return join(dirname(entry), 'silero_vad.onnx');
}

export class SileroVad {
  readonly #session: InferenceSession;
  readonly #sr = new Tensor('int64', BigInt64Array.from([BigInt(vadSampleRate)]), []);
  #closed = false;

  private constructor(session: InferenceSession) {
    this.#session = session;
  }

  static async load(options: Partial<SileroVadLoadOptions> = {}): Promise<SileroVad> {
    const session = await InferenceSession.create(options.modelPath ?? defaultSileroModelPath(), {
      intraOpNumThreads: options.intraOpNumThreads ?? 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new SileroVad(session);
  }

  /** A new stream with its own state; options are per stream (per agent). */
  stream(options: Partial<VadOptions> = {}): VadStream {
    if (this.#closed) throw new Error('SileroVad is closed');
    return new VadStream(this, options);
  }

  /** Fresh zeroed buffers for one stream. */
  newState(): SileroState {
    return { input: new Float32Array(vadContextSamples + vadWindowSamples), rnn: new Float32Array(vadStateSize) };
  }

  /**
   * Speech probability of the window in `state.input[64..576)`; updates `state.rnn` and moves the
   * window's last 64 samples to the context slot. Calls for one state must not overlap.
   */
  async infer(state: SileroState): Promise<number> {
    const result = await this.#session.run({
      input: new Tensor('float32', state.input, [1, vadContextSamples + vadWindowSamples]),
      state: new Tensor('float32', state.rnn, [2, 1, 128]),
      sr: this.#sr,
    });
    state.rnn.set(result['stateN']!.data as Float32Array);
    state.input.copyWithin(0, vadWindowSamples, vadContextSamples + vadWindowSamples);
    return (result['output']!.data as Float32Array)[0]!;
  }

  /** Releases the inference session; streams must be done. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#session.release();
  }
}
