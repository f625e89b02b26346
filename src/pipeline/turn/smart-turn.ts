/**
 * Pipecat's Smart Turn v3 (BSD-2-Clause; pipecat-ai/smart-turn-v3 on the Hugging Face hub) as the
 * process's EndOfTurnModel: the utterance's last 8 s of 16 kHz audio → Whisper log-mel features →
 * a Whisper-tiny encoder with a classifier → the probability that the speaker has finished.
 *
 * Optional: `load` returns null when the file is not in MODELS_DIR (`npm run models` fetches it).
 * One worker thread per process runs the features and the inference, one check at a time in
 * arrival order; a check aborted while it waits never runs, one aborted while running is answered
 * at once and its result dropped. A worker that dies fails its checks (callers fall back to the
 * word-based wait) and is replaced for the next one.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { WorkerClient } from '../../workers/worker-client.js';
import type { EndOfTurnModel } from './end-of-turn-model.js';
import { smartTurnWindowSamples } from './smart-turn-features.js';
import type { SmartTurnCheck, SmartTurnProtocol, SmartTurnWorkerSetup } from './smart-turn-protocol.js';

/** The manifest's model id (its folder under MODELS_DIR) and file. */
export const smartTurnModelId = 'pipecat-ai/smart-turn-v3';
export const smartTurnFile = 'smart-turn-v3.2-cpu.onnx';

export interface SmartTurnOptions {
  /** ONNX Runtime intra-op threads in the worker. */
  threads: number;
}

/** What the checks so far cost (for the benchmark and logs). */
export interface SmartTurnStats {
  checks: number;
  featuresMs: number;
  inferenceMs: number;
  /** Worker-thread CPU, summed; NaN where /proc is absent. */
  cpuMs: number;
}

export class SmartTurnModel implements EndOfTurnModel {
  readonly label: string;
  readonly #setup: SmartTurnWorkerSetup;
  #worker: WorkerClient<SmartTurnProtocol>;
  #closed = false;
  readonly #stats: SmartTurnStats = { checks: 0, featuresMs: 0, inferenceMs: 0, cpuMs: 0 };

  private constructor(setup: SmartTurnWorkerSetup) {
    this.#setup = setup;
    this.label = `smart-turn-v3 (${setup.modelPath})`;
    this.#worker = this.#spawn();
  }

  /** The model in `<modelsDir>/pipecat-ai/smart-turn-v3/`, or null when its file is not there. */
  static async load(modelsDir: string, options: Partial<SmartTurnOptions> = {}): Promise<SmartTurnModel | null> {
    const modelPath = join(modelsDir, smartTurnModelId, smartTurnFile);
    try {
      await access(modelPath);
    } catch {
      return null; // not installed: the model is optional
    }
    return SmartTurnModel.open(modelPath, options);
  }

  /** The model in a given ONNX file (any file with Smart Turn v3's input and output). Rejects when it does not load. */
  static async open(modelPath: string, options: Partial<SmartTurnOptions> = {}): Promise<SmartTurnModel> {
    const model = new SmartTurnModel({ modelPath, threads: options.threads ?? 1 });
    try {
      await model.#worker.call('load', {});
    } catch (err) {
      await model.close();
      throw new Error(
        `Smart Turn model ${modelPath} did not load: ${err instanceof Error ? err.message : String(err)}`,
        {
          cause: err,
        },
      );
    }
    return model;
  }

  async endOfTurn(audio: Int16Array, signal?: AbortSignal): Promise<number> {
    const reply = await this.check(audio, signal);
    return reply.probability;
  }

  /** One check with what it cost. */
  async check(audio: Int16Array, signal?: AbortSignal): Promise<SmartTurnCheck> {
    if (this.#closed) throw new Error('the Smart Turn model is closed');
    // Only the window the model reads is copied, and the copy is moved, not cloned, to the worker.
    const tail = audio.slice(Math.max(0, audio.length - smartTurnWindowSamples));
    const reply = await this.#worker.call('check', { audio: tail }, { signal, transfer: [tail.buffer] });
    this.#stats.checks++;
    this.#stats.featuresMs += reply.featuresMs;
    this.#stats.inferenceMs += reply.inferenceMs;
    this.#stats.cpuMs += reply.cpuMs;
    return reply;
  }

  stats(): SmartTurnStats {
    return { ...this.#stats };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#worker.close('the Smart Turn model is closed');
  }

  #spawn(): WorkerClient<SmartTurnProtocol> {
    const worker: WorkerClient<SmartTurnProtocol> = new WorkerClient<SmartTurnProtocol>({
      module: { base: import.meta.url, name: 'smart-turn-worker' },
      workerData: this.#setup,
      name: 'smart-turn',
      maxInFlight: 1,
      replyError: (message) => new Error(`Smart Turn check failed: ${message}`),
      onStop: () => {
        if (!this.#closed && this.#worker === worker) this.#worker = this.#spawn();
      },
    });
    return worker;
  }
}

/**
 * The process's optional Smart Turn model at start, or null without one; a file that does not
 * load is logged and left out. (Whether it is used is said once per server by openParley.)
 */
export async function loadSmartTurn(modelsDir: string, logger: Logger): Promise<SmartTurnModel | null> {
  try {
    return await SmartTurnModel.load(modelsDir);
  } catch (err) {
    logger.error({ err }, 'the Smart Turn model did not load: endpointing runs without it');
    return null;
  }
}
