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
 * Deepgram). Streams: a session opens one socket per utterance at the VAD's onset, so the
 * handshake overlaps the speech and the final transcript comes ~0.1-0.3 s after the end of
 * speech, punctuated. A socket per utterance rather than per session: nothing is open (or
 * billed, or kept alive) while nobody speaks, and a socket that fails takes only its own
 * utterance with it. A whole utterance can also be transcribed at once (streamed faster than
 * real time, then finalized).
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
