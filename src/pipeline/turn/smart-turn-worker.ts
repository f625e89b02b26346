/**
 * Worker-thread side of SmartTurnModel: one ONNX Runtime session of the Smart Turn v3 file, and
 * the features computed here too, so a check (~tens of ms of CPU) never blocks the event loop
 * (onnxruntime-node runs inference on the calling thread). Checks run one at a time.
 */
import { readFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { serveRpc } from '../../workers/serve-rpc.js';
import { SmartTurnFeatures, smartTurnFrames, smartTurnMels } from './smart-turn-features.js';
import type { SmartTurnProtocol, SmartTurnWorkerSetup } from './smart-turn-protocol.js';

const setup = workerData as SmartTurnWorkerSetup;
const features = new SmartTurnFeatures();
const input = new Float32Array(smartTurnMels * smartTurnFrames);
let session: Promise<InferenceSession> | undefined;

function model(): Promise<InferenceSession> {
  session ??= InferenceSession.create(setup.modelPath, {
    intraOpNumThreads: setup.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  return session;
}

/** This thread's CPU time (user + system) in ms, from /proc (10 ms ticks); NaN where absent. */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN; // not Linux: the CPU figure is simply absent
  }
}

async function check(audio: Int16Array): Promise<SmartTurnProtocol['check']['reply']> {
  const s = await model();
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  features.compute(audio, input);
  const t1 = performance.now();
  const out = await s.run({ input_features: new Tensor('float32', input, [1, smartTurnMels, smartTurnFrames]) });
  const t2 = performance.now();
  const logits = out['logits'] ?? out[s.outputNames[0]!];
  const probability = (logits?.data as Float32Array | undefined)?.[0];
  if (probability === undefined || !Number.isFinite(probability)) throw new Error('the model gave no probability');
  return { probability, featuresMs: t1 - t0, inferenceMs: t2 - t1, cpuMs: threadCpuMs() - cpu0 };
}

serveRpc<SmartTurnProtocol>({
  async load() {
    const s = await model();
    if (!s.inputNames.includes('input_features')) {
      throw new Error(`not a Smart Turn v3 model: inputs ${s.inputNames.join(', ')} (expected input_features)`);
    }
    await check(new Int16Array(0));
    return { inputs: [...s.inputNames], outputs: [...s.outputNames] };
  },
  check: ({ audio }) => check(audio),
});
