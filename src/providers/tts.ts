/**
 * Text to speech. Implementations: providers/espeak/, providers/flite/, providers/openai/openai-tts.ts,
 * providers/local/vits-tts.ts, providers/elevenlabs/ (which also streams text in).
 */
export interface TtsRequest {
  text: string;
  model: string;
  voice: string;
  /** 1 = normal. */
  speed: number;
  /** The rate the speech will be played at: a provider that can produce it does (the rest is resampled). */
  sampleRate?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A piece of synthesized speech: mono PCM16 at `sampleRate`. */
export interface TtsChunk {
  samples: Int16Array;
  sampleRate: number;
}

export interface TtsProvider {
  readonly label: string;
  /**
   * Speech for `text`, streamed as it is produced so playback can start early. Aborting the signal
   * stops synthesis and ends the iteration (no error).
   */
  synthesize(request: TtsRequest): AsyncIterable<TtsChunk>;
}

/** What a text stream is opened with: a request without its text, which is pushed later. */
export type TtsStreamRequest = Omit<TtsRequest, 'text'>;

/** Speech of a text stream, with the segment it speaks (0 = the text before the first `flush`). */
export interface TtsStreamChunk extends TtsChunk {
  segment: number;
}

/**
 * One answer spoken as its text is produced: text in as it arrives (LLM tokens), speech out in
 * order. `flush` ends a segment (a clause, a sentence): what was pushed is spoken now, without
 * waiting for more text. Aborting the request's signal closes the stream and ends `audio` quietly.
 */
export interface TtsStream {
  /** More text of the current segment, any size (a token, a word, a whole reply). */
  push(text: string): void;
  /** Ends the current segment: speak what was pushed now; later text is the next segment. */
  flush(): void;
  /** No more text: `audio` ends once the last segment is spoken. */
  end(): void;
  readonly audio: AsyncIterable<TtsStreamChunk>;
}

/** A TTS provider that can also take the text as it is produced. */
export interface StreamingTtsProvider extends TtsProvider {
  openStream(request: TtsStreamRequest): TtsStream;
}

export function isStreamingTts(provider: TtsProvider): provider is StreamingTtsProvider {
  return 'openStream' in provider && typeof provider.openStream === 'function';
}
