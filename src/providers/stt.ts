/**
 * Speech to text. Implementations: providers/openai/openai-stt.ts, providers/local/whisper-stt.ts,
 * providers/pocketsphinx/ and providers/openai-realtime/ (which also stream).
 */
export interface SttRequest {
  /** Mono PCM16 at `sampleRate` (the pipeline sends 16 kHz). */
  audio: Int16Array;
  sampleRate: number;
  model: string;
  /** Language hint (ISO 639-1) or null to let the model detect. */
  language: string | null;
  /**
   * Expected words and phrases (the agent's `expected_phrases`): made likelier where the provider
   * can (pocketsphinx boosts its language model, openai sends them as the prompt), else ignored.
   */
  phrases?: readonly string[] | undefined;
  /**
   * Hear only `phrases` (the agent's `expected_phrases_only`), where the provider can (its
   * `phraseGrammar`); otherwise they are made likelier as above.
   */
  phrasesOnly?: boolean | undefined;
  /**
   * The rate the audio was captured at before it was resampled to `sampleRate` (a phone call: 8000),
   * for recognisers that normalise per channel (pocketsphinx); undefined: `sampleRate`.
   */
  capturedRate?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface SttProvider {
  readonly label: string;
  /** True when a request's `phrasesOnly` makes its `phrases` a grammar (pocketsphinx). */
  readonly phraseGrammar?: boolean;
  /** The transcript; '' when nothing intelligible was said. */
  transcribe(request: SttRequest): Promise<string>;
}

/** What a streaming transcription of one utterance is opened with. */
export type SttStreamRequest = Omit<SttRequest, 'audio' | 'signal'>;

/**
 * One utterance decoded while it is spoken: audio in as it arrives, the hypothesis so far after
 * each write, the final transcript a few ms after the last write.
 */
export interface SttStream {
  /** Decodes more of the utterance (16 kHz PCM16, read now, not kept). */
  write(samples: Int16Array): void;
  /** The best hypothesis so far ('' before any word). */
  readonly partial: string;
  /** False once the stream has given up (a decoder failure, or it fell behind): transcribe the audio whole. */
  readonly healthy: boolean;
  /** Ends the utterance: its transcript ('' when nothing intelligible was said). */
  finish(): Promise<string>;
  /** Drops the utterance. */
  cancel(): void;
}

/** An STT provider that can also decode as the user speaks. */
export interface StreamingSttProvider extends SttProvider {
  /** A stream for one utterance, or null when no decoder is free now (then `transcribe` the audio whole). */
  openStream(request: SttStreamRequest): SttStream | null;
  /** Loads what a first stream like `request` needs (a decoder's model) ahead of it, so the first utterance does not wait. */
  warm?(request: SttStreamRequest): Promise<void>;
}

/**
 * Whether `request` is heard as a grammar of its phrases: only those phrases can be heard, so an
 * empty transcript may be words outside them, which transcribing the audio again without phrases tells.
 */
export function hearsPhrasesOnly(stt: SttProvider, request: Pick<SttRequest, 'phrases' | 'phrasesOnly'>): boolean {
  return stt.phraseGrammar === true && request.phrasesOnly === true && (request.phrases?.length ?? 0) > 0;
}

export function isStreaming(provider: SttProvider): provider is StreamingSttProvider {
  return 'openStream' in provider && typeof provider.openStream === 'function';
}
