import { ProviderNotConfigured } from '../provider-error.js';
import type { StreamingSttProvider, SttRequest, SttStreamRequest } from '../stt.js';
import {
  authHeaders,
  deepgramProblem,
  defaultDeepgramOptions,
  listenUrl,
  type DeepgramOptions,
} from './deepgram-options.js';
import { DeepgramStream } from './deepgram-stream.js';

const label = 'deepgram';

/**
 * Deepgram's live recogniser (`/v1/listen` over WebSocket; the hosted API or a self-hosted
 * Deepgram). Streams: a session opens one socket per speech segment at the VAD's onset, so the
 * handshake overlaps the speech and the final transcript comes Deepgram's ~0.1-0.3 s after the
 * segment ends, punctuated. A socket per segment rather than per session: nothing is open (kept
 * alive, counted against the account's concurrent connections) while nobody speaks, no result
 * can be taken for the wrong segment, and a socket that fails takes only its own turn with it.
 * A whole utterance can also be transcribed at once (sent faster than real time, then finalized).
 */
export class DeepgramStt implements StreamingSttProvider {
  readonly label = label;
  readonly options: DeepgramOptions;

  constructor(options: Partial<DeepgramOptions> = {}) {
    this.options = { ...defaultDeepgramOptions, ...options };
  }

  openStream(request: SttStreamRequest): DeepgramStream {
    const problem = deepgramProblem(this.options);
    if (problem !== null) throw new ProviderNotConfigured(label, problem);
    return new DeepgramStream(listenUrl(this.options, request), authHeaders(this.options.apiKey), this.options.stallMs);
  }

  async transcribe(request: SttRequest): Promise<string> {
    const { audio, signal } = request;
    signal?.throwIfAborted();
    if (audio.length === 0) return '';
    const stream = this.openStream(request);
    const abort = () => stream.cancel(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const step = Math.max(1, Math.round((request.sampleRate * this.options.chunkMs) / 1000));
      for (let at = 0; at < audio.length; at += step) stream.write(audio.subarray(at, at + step));
      return await stream.finish();
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
}
