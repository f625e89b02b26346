/** Text to speech. Implementations: providers/espeak/, providers/flite/, providers/openai/openai-tts.ts, providers/local/vits-tts.ts. */
export interface TtsRequest {
  text: string;
  model: string;
  voice: string;
  /** 1 = normal. */
  speed: number;
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
