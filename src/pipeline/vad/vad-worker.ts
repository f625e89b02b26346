/**
 * The VAD worker thread: holds the Silero model and runs each batch the batcher sends, one at a
 * time, so inference never runs on the event loop that carries the sessions' audio.
 */
import { workerData } from 'node:worker_threads';
import { serveRpc } from '../../workers/serve-rpc.js';
import { SileroModel } from './silero-model.js';
import type { VadProtocol, VadWorkerSetup } from './vad-protocol.js';

const setup = workerData as VadWorkerSetup;
const model = SileroModel.load(setup);

serveRpc<VadProtocol>(
  {
    async infer({ input, state, batch }) {
      const probabilities = await (await model).run(input, state, batch);
      return { input, state, probabilities };
    },
    async warm() {
      await model;
      return {};
    },
  },
  {
    infer: (r) => [r.input.buffer as ArrayBuffer, r.state.buffer as ArrayBuffer, r.probabilities.buffer as ArrayBuffer],
  },
);
