/** Speech to text. Implementations: providers/openai/openai-stt.ts, providers/local/whisper-stt.ts. */
export interface SttRequest {
  /** Mono PCM16 at `sampleRate` (the pipeline sends 16 kHz). */
  audio: Int16Array;
  sampleRate: number;
  model: string;
  /** Language hint (ISO 639-1) or null to let the model detect. */
  language: string | null;
  signal?: AbortSignal | undefined;
}

export interface SttProvider {
  readonly label: string;
  /** The transcript; '' when nothing intelligible was said. */
  transcribe(request: SttRequest): Promise<string>;
}
