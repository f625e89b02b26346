/**
 * Worker-thread side of the SphinxPool: up to `decoders` PocketSphinx decoders, created on first
 * use and reused, each serving one utterance at a time. Requests run one after another in arrival
 * order (serveRpc), so the streams of every session sharing this worker interleave window by window.
 *
 * Each decoder belongs to one band (sphinx-band.ts): its running cepstral mean is that channel's,
 * so a phone call never inherits a browser's mean or the other way round. When every decoder this
 * worker may hold exists and none of the band asked for is idle, an idle one of the other band
 * makes room.
 */
import { workerData } from 'node:worker_threads';
import { serveRpc } from '../../workers/serve-rpc.js';
import { phoneFeatParams, type SphinxBand } from './sphinx-band.js';
import { SphinxDecoder } from './sphinx-library.js';
import type { SphinxProtocol, SphinxSearch, SphinxWorkerSetup } from './sphinx-protocol.js';

const setup = workerData as SphinxWorkerSetup;
/** A decoder with the band it serves. */
interface BandDecoder {
  decoder: SphinxDecoder;
  band: SphinxBand;
}
const idle: Record<SphinxBand, BandDecoder[]> = { phone: [], wide: [] };
const streams = new Map<number, BandDecoder>();
let created = 0;

function argvOf(band: SphinxBand): string[] {
  return band === 'phone' ? [...setup.argv, '-featparams', phoneFeatParams(setup.hmm)] : setup.argv;
}

function take(band: SphinxBand): BandDecoder {
  const ready = idle[band].pop();
  if (ready !== undefined) return ready;
  if (created >= setup.decoders) {
    const spare = idle[band === 'phone' ? 'wide' : 'phone'].shift();
    // The main thread counts free decoders before it asks, so this is a bug there, not load.
    if (spare === undefined) throw new Error(`all ${setup.decoders} decoders of this worker are busy`);
    spare.decoder.dispose();
    created--;
  }
  const fresh = { decoder: new SphinxDecoder(argvOf(band), setup.libraries), band };
  created++;
  return fresh;
}

function putBack(used: BandDecoder): void {
  idle[used.band].push(used);
}

/** Takes a decoder and starts an utterance; a decoder that cannot start goes back idle. */
function begin(search: SphinxSearch, band: SphinxBand): BandDecoder {
  const taken = take(band);
  try {
    taken.decoder.start(search);
  } catch (err) {
    putBack(taken);
    throw err;
  }
  return taken;
}

function streamOf(stream: number): BandDecoder {
  const taken = streams.get(stream);
  if (taken === undefined) throw new Error(`no utterance is open for stream ${stream}`);
  return taken;
}

/** Runs `work` on the stream's decoder; on failure the utterance is dropped and the decoder freed. */
function onStream<T>(stream: number, work: (decoder: SphinxDecoder) => T, release = false): T {
  const taken = streamOf(stream);
  try {
    return work(taken.decoder);
  } catch (err) {
    release = true;
    taken.decoder.cancel();
    throw err;
  } finally {
    if (release) {
      streams.delete(stream);
      putBack(taken);
    }
  }
}

serveRpc<SphinxProtocol>({
  async warm({ band, search }) {
    const held = idle[band].length > 0 || [...streams.values()].some((s) => s.band === band);
    const room = created < setup.decoders || idle.phone.length + idle.wide.length > 0;
    if (!held && room) putBack(take(band));
    // the search on the decoder taken next (a boost's or a grammar's build: ~0.2-0.4 s on a fresh decoder)
    const next = idle[band].at(-1);
    if (search !== null && next !== undefined) {
      next.decoder.start(search);
      next.decoder.cancel();
    }
    return {};
  },
  async open({ stream, search, band }) {
    if (streams.has(stream)) throw new Error(`stream ${stream} is open already`);
    streams.set(stream, begin(search, band));
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
  async transcribe({ samples, search, band }) {
    const taken = begin(search, band);
    try {
      taken.decoder.process(samples);
      return { text: taken.decoder.end() };
    } catch (err) {
      taken.decoder.cancel();
      throw err;
    } finally {
      putBack(taken);
    }
  },
});
