import type { StreamingTtsProvider, TtsChunk, TtsRequest, TtsStream, TtsStreamRequest } from '../tts.js';
import { ElevenLabsStream, type ElevenLabsEndpoint, type ElevenLabsStreamOptions } from './elevenlabs-stream.js';

export type ElevenLabsTtsOptions = ElevenLabsStreamOptions;

export const defaultElevenLabsTtsOptions: ElevenLabsTtsOptions = {
  // ElevenLabs' own default; an LLM that stalls this long has failed its turn long before (PARLEY_PROVIDER_STALL_MS)
  inactivityTimeoutS: 20,
};

/**
 * ElevenLabs speech through its input-streaming WebSocket (elevenlabs-stream.ts): a reply's text
 * goes in as it is produced (`openStream`), one socket per answer. A whole text (`synthesize`: the
 * fallback line, a caller's voice) is one stream pushed at once and ended.
 */
export class ElevenLabsTts implements StreamingTtsProvider {
  readonly label = 'elevenlabs';
  private readonly options: ElevenLabsTtsOptions;

  constructor(
    private readonly endpoint: ElevenLabsEndpoint,
    options: Partial<ElevenLabsTtsOptions> = {},
  ) {
    this.options = { ...defaultElevenLabsTtsOptions, ...options };
  }

  openStream(request: TtsStreamRequest): TtsStream {
    return new ElevenLabsStream(this.endpoint, request, this.options);
  }

  async *synthesize(request: TtsRequest): AsyncIterable<TtsChunk> {
    if (request.signal?.aborted || request.text.trim() === '') return;
    const stream = new ElevenLabsStream(this.endpoint, request, this.options);
    try {
      stream.push(request.text);
      stream.end();
      for await (const { samples, sampleRate } of stream.audio) yield { samples, sampleRate };
    } finally {
      stream.close();
    }
  }
}
