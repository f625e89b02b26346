/**
 * The VAD worker thread: holds the Silero model and runs each batch the batcher puts in the shared
 * buffers, one at a time, so inference never runs on the event loop that carries the sessions' audio.
 */
import { workerData } from 'node:worker_threads';
import { serveRpc } from '../../workers/serve-rpc.js';
import { backgroundNiceSteps, lowerThreadPriority } from '../../workers/thread-priority.js';
import { vadInputSamples, vadStateSize } from './silero-format.js';
import { SileroModel } from './silero-model.js';
import type { VadProtocol, VadWorkerSetup } from './vad-protocol.js';

const setup = workerData as VadWorkerSetup;
// Inference yields to the event loop when a core is contended: a late batch only grows the next
// one (vad-batcher.ts), while a late event loop delays every session's frames and timers.
const nice = lowerThreadPriority(backgroundNiceSteps);
const model = SileroModel.load(setup);
let views: { input: Float32Array; state: Float32Array; probabilities: Float32Array } | undefined;
const local = { input: new Float32Array(0), state: new Float32Array(0) };

serveRpc<VadProtocol>({
  async infer({ batch, buffers }) {
    if (buffers !== undefined) {
      views = {
        input: new Float32Array(buffers.input),
        state: new Float32Array(buffers.state),
        probabilities: new Float32Array(buffers.probabilities),
      };
    }
    if (views === undefined) throw new Error('VAD worker: no batch buffers yet');
    // ONNX Runtime refuses tensors over shared memory: the batch is copied into this thread's own
    // buffers (a memcpy, small beside the inference) and the next states copied back.
    const inputLength = batch * vadInputSamples;
    const stateLength = batch * vadStateSize;
    if (local.input.length < inputLength) local.input = new Float32Array(views.input.length);
    if (local.state.length < stateLength) local.state = new Float32Array(views.state.length);
    const input = local.input.subarray(0, inputLength);
    const state = local.state.subarray(0, stateLength);
    input.set(views.input.subarray(0, inputLength));
    state.set(views.state.subarray(0, stateLength));
    const probabilities = await (await model).run(input, state, batch);
    views.state.set(state);
    views.probabilities.set(probabilities);
    return {};
  },
  async warm() {
    await model;
    return { nice };
  },
});
