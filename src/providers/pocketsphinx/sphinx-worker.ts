/**
 * Worker-thread side of the SphinxPool: up to `decoders` PocketSphinx decoders, created on first
 * use and reused, each serving one utterance at a time. Requests run one after another in arrival
 * order (serveRpc), so the streams of every session sharing this worker interleave window by window.
 */
import { workerData } from 'node:worker_threads';
import { serveRpc } from '../../workers/serve-rpc.js';
import { SphinxDecoder } from './sphinx-library.js';
import type { SphinxGrammar, SphinxProtocol, SphinxWorkerSetup } from './sphinx-protocol.js';

const setup = workerData as SphinxWorkerSetup;
const idle: SphinxDecoder[] = [];
const streams = new Map<number, SphinxDecoder>();
let created = 0;

function take(): SphinxDecoder {
  const decoder = idle.pop();
  if (decoder !== undefined) return decoder;
  // The main thread counts free decoders before it asks, so this is a bug there, not load.
  if (created >= setup.decoders) throw new Error(`all ${setup.decoders} decoders of this worker are busy`);
  const fresh = new SphinxDecoder(setup.argv, setup.libraries);
  created++;
  return fresh;
}

/** Takes a decoder and starts an utterance; a decoder that cannot start goes back idle. */
function begin(grammar: SphinxGrammar | null): SphinxDecoder {
  const decoder = take();
  try {
    decoder.start(grammar);
  } catch (err) {
    idle.push(decoder);
    throw err;
  }
  return decoder;
}

function streamOf(stream: number): SphinxDecoder {
  const decoder = streams.get(stream);
  if (decoder === undefined) throw new Error(`no utterance is open for stream ${stream}`);
  return decoder;
}

/** Runs `work` on the stream's decoder; on failure the utterance is dropped and the decoder freed. */
function onStream<T>(stream: number, work: (decoder: SphinxDecoder) => T, release = false): T {
  const decoder = streamOf(stream);
  try {
    return work(decoder);
  } catch (err) {
    release = true;
    decoder.cancel();
    throw err;
  } finally {
    if (release) {
      streams.delete(stream);
      idle.push(decoder);
    }
  }
}

serveRpc<SphinxProtocol>({
  async warm() {
    if (created === 0) idle.push(take());
    return {};
  },
  async open({ stream, grammar }) {
    if (streams.has(stream)) throw new Error(`stream ${stream} is open already`);
    streams.set(stream, begin(grammar));
    return {};
  },
  async feed({ stream, samples }) {
    return { partial: onStream(stream, (d) => d.process(samples)) };
  },
  async finish({ stream }) {
    return { text: onStream(stream, (d) => d.end(), true) };
  },
  async cancel({ stream }) {
    const decoder = streams.get(stream);
    if (decoder !== undefined) onStream(stream, (d) => d.cancel(), true);
    return {};
  },
  async transcribe({ samples, grammar }) {
    const decoder = begin(grammar);
    try {
      decoder.process(samples);
      return { text: decoder.end() };
    } catch (err) {
      decoder.cancel();
      throw err;
    } finally {
      idle.push(decoder);
    }
  },
});
