import { ProviderNotConfigured } from '../provider-error.js';
import type { StreamingSttProvider, SttRequest, SttStream, SttStreamRequest } from '../stt.js';
import { realtimeLabel, realtimeReason, type RealtimeEndpoint } from './realtime-connection.js';
import type { TranscriptionSettings } from './realtime-events.js';
import { RealtimeUtterance } from './realtime-utterance.js';

export interface OpenAiRealtimeSttOptions {
  /** Longest wait for a session to be ready (socket open, configuration applied), in ms. */
  connectTimeoutMs: number;
  /** After the end of speech: the longest silence from the server before the transcript, in ms. */
  stallMs: number;
  /** After the end of speech: the longest wait for the transcript, in ms. */
  timeoutMs: number;
  /** Audio a stream may have written but not sent yet before it fails (behind real time), in ms. */
  maxLagMs: number;
}

export const defaultOpenAiRealtimeSttOptions: OpenAiRealtimeSttOptions = {
  connectTimeoutMs: 10_000,
  stallMs: 10_000,
  timeoutMs: 30_000,
  maxLagMs: 3_000,
};

/** The prompt holds the expected phrases up to this many characters (a Whisper prompt is ~224 tokens). */
const maxPromptChars = 800;

/**
 * OpenAI's Realtime API in transcription mode (`wss://…/v1/realtime?intent=transcription`), or any
 * server speaking that protocol: streaming speech to text. Each utterance gets its own session on
 * its own WebSocket, opened at the onset of speech, so the handshake and configuration overlap the
 * speech; audio goes up as it is spoken; at the end of speech the buffer is committed and the
 * transcript is the item's `completed` text, ~one server transcription after the end of speech.
 * Server VAD is off: Parley's VAD decides where an utterance ends.
 */
export class OpenAiRealtimeStt implements StreamingSttProvider {
  readonly label = realtimeLabel;
  readonly options: OpenAiRealtimeSttOptions;

  constructor(
    private readonly endpoint: RealtimeEndpoint,
    options: Partial<OpenAiRealtimeSttOptions> = {},
  ) {
    this.options = { ...defaultOpenAiRealtimeSttOptions, ...options };
  }

  openStream(request: SttStreamRequest): SttStream {
    this.#assertConfigured();
    return this.#open(request, this.options.maxLagMs);
  }

  /** A whole utterance: one session, the audio appended in 1 s pieces, then committed. */
  async transcribe(request: SttRequest): Promise<string> {
    const { signal } = request;
    signal?.throwIfAborted();
    this.#assertConfigured();
    if (request.audio.length === 0) return '';
    const utterance = this.#open(request, Infinity);
    const onAbort = (): void => utterance.cancel(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (let at = 0; at < request.audio.length; at += request.sampleRate)
        utterance.write(request.audio.subarray(at, at + request.sampleRate));
      return await utterance.finish();
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  #open(request: SttStreamRequest, maxLagMs: number): RealtimeUtterance {
    const { connectTimeoutMs, stallMs, timeoutMs } = this.options;
    const limits = { connectMs: connectTimeoutMs, stallMs, totalMs: timeoutMs, maxLagMs };
    return new RealtimeUtterance(this.endpoint, transcriptionSettings(request), request.sampleRate, limits);
  }

  #assertConfigured(): void {
    const reason = realtimeReason(this.endpoint);
    if (reason !== null) throw new ProviderNotConfigured(realtimeLabel, `not configured: ${reason}`);
  }
}

/**
 * A preset's STT section as the session's transcription settings: the language's primary subtag
 * (the API takes ISO 639-1: `en-US` → `en`), the expected phrases as the prompt (comma-separated,
 * as many whole phrases as fit in `maxPromptChars`).
 */
export function transcriptionSettings(request: SttStreamRequest): TranscriptionSettings {
  let prompt = '';
  for (const phrase of request.phrases ?? []) {
    const next = prompt === '' ? phrase : `${prompt}, ${phrase}`;
    if (next.length > maxPromptChars) break;
    prompt = next;
  }
  const language = request.language?.split('-')[0]?.toLowerCase() ?? '';
  return { model: request.model, language: language === '' ? null : language, prompt: prompt === '' ? null : prompt };
}
