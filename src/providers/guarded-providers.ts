import type { Config } from '../config/config.js';
import { callWithin, streamWithin } from './call-deadline.js';
import type { LlmDelta, LlmProvider, LlmRequest, LlmToolRequest } from './llm.js';
import { ProviderError } from './provider-error.js';
import { isStreaming, type StreamingSttProvider, type SttProvider, type SttRequest } from './stt.js';
import { streamWithinLimits } from './stream-deadline.js';
import { isStreamingTts, type StreamingTtsProvider, type TtsChunk, type TtsProvider, type TtsRequest } from './tts.js';

/** The limits of the calls of one turn (PARLEY_STT_TIMEOUT_MS, PARLEY_TTS_TIMEOUT_MS, PARLEY_PROVIDER_STALL_MS). */
export type SpeechLimits = Config['speechLimits'];

export const defaultSpeechLimits: SpeechLimits = Object.freeze({
  sttTimeoutMs: 30_000,
  ttsTimeoutMs: 30_000,
  stallMs: 10_000,
});

/**
 * Any failure of a provider call as a ProviderError (the SDK's JSON parser failing on a truncated
 * body, a provider's own bug): the turn fails with a record, the session goes on. An abort by the
 * caller passes as it is: that is not a failure.
 */
function asProviderError(provider: string, what: string, err: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true || err instanceof ProviderError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new ProviderError(provider, `${what} failed: ${detail}`, { cause: err });
}

/** `stt` with every transcription bounded by `sttTimeoutMs` and every failure a ProviderError. */
export function guardedStt(stt: SttProvider, limits: SpeechLimits): SttProvider {
  const transcribe = (request: SttRequest): Promise<string> =>
    callWithin(stt.label, 'transcription', limits.sttTimeoutMs, request.signal, (signal) =>
      stt.transcribe({ ...request, signal }),
    ).catch((err: unknown) => {
      throw asProviderError(stt.label, 'transcription', err, request.signal);
    });
  // what the provider says of itself carries over (phraseGrammar: it can hear its phrases alone)
  const own = { label: stt.label, ...(stt.phraseGrammar === undefined ? {} : { phraseGrammar: stt.phraseGrammar }) };
  if (!isStreaming(stt)) return { ...own, transcribe };
  const streaming: StreamingSttProvider = { ...own, transcribe, openStream: (r) => stt.openStream(r) };
  return streaming;
}

/**
 * `tts` with every sentence's speech bounded (first audio and gaps by `stallMs`, whole by
 * `ttsTimeoutMs`), and a text stream's audio too while it is owed (stream-deadline.ts).
 */
export function guardedTts(tts: StreamingTtsProvider, limits: SpeechLimits): StreamingTtsProvider;
export function guardedTts(tts: TtsProvider, limits: SpeechLimits): TtsProvider;
export function guardedTts(tts: TtsProvider, limits: SpeechLimits): TtsProvider {
  const bounds = { firstMs: limits.stallMs, gapMs: limits.stallMs, totalMs: limits.ttsTimeoutMs };
  const guarded: TtsProvider = {
    label: tts.label,
    synthesize: (request: TtsRequest): AsyncIterable<TtsChunk> =>
      rethrown(
        streamWithin(tts.label, 'speech', bounds, request.signal, (signal) => tts.synthesize({ ...request, signal })),
        (err) => asProviderError(tts.label, 'speech', err, request.signal),
      ),
  };
  if (!isStreamingTts(tts)) return guarded;
  const streamLimits = { stallMs: limits.stallMs, totalMs: limits.ttsTimeoutMs };
  const streaming: StreamingTtsProvider = {
    ...guarded,
    openStream: (request) => {
      const stream = streamWithinLimits(tts.label, streamLimits, request.signal, (signal) =>
        tts.openStream({ ...request, signal }),
      );
      return {
        ...stream,
        audio: rethrown(stream.audio, (err) => asProviderError(tts.label, 'speech', err, request.signal)),
      };
    },
  };
  return streaming;
}

/**
 * `llm` with every call bounded by its request's `timeoutMs` (PARLEY_LLM_TIMEOUT_MS: first token to
 * last), a streamed answer stalling past `stallMs` between tokens failing too.
 */
export function guardedLlm(llm: LlmProvider, stallMs: number): LlmProvider {
  const bounds = (request: LlmRequest) => ({
    firstMs: request.timeoutMs,
    gapMs: stallMs,
    totalMs: request.timeoutMs,
  });
  const fail = (request: LlmRequest) => (err: unknown) =>
    asProviderError(llm.label, 'chat completion', err, request.signal);
  return {
    label: llm.label,
    complete: (request) =>
      callWithin(llm.label, 'chat completion', request.timeoutMs, request.signal, (signal) =>
        llm.complete({ ...request, signal }),
      ).catch((err: unknown) => {
        throw fail(request)(err);
      }),
    stream: (request) =>
      rethrown(
        streamWithin(llm.label, 'chat completion', bounds(request), request.signal, (signal) =>
          llm.stream({ ...request, signal }),
        ),
        fail(request),
      ),
    streamWithTools: (request: LlmToolRequest): AsyncIterable<LlmDelta> =>
      rethrown(
        streamWithin(llm.label, 'chat completion', bounds(request), request.signal, (signal) =>
          llm.streamWithTools({ ...request, signal }),
        ),
        fail(request),
      ),
  };
}

async function* rethrown<T>(source: AsyncIterable<T>, as: (err: unknown) => unknown): AsyncIterable<T> {
  try {
    yield* source;
  } catch (err) {
    throw as(err);
  }
}
