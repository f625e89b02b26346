import { catchError, defer, ignoreElements, throwError, type Observable, type OperatorFunction } from 'rxjs';
import { abortable } from '../pipeline/reply/abortable.js';
import type { ReplyStages } from '../pipeline/reply/reply.js';
import { resampleSpeech } from '../pipeline/reply/speech-resampler.js';
import { streamedSpeech } from '../pipeline/reply/streamed-speech.js';
import { StageFailure, type ReplyStage } from '../pipeline/reply/stage-failure.js';
import { ProviderError } from '../providers/provider-error.js';
import { defaultSpeechLimits, guardedStt, guardedTts } from '../providers/guarded-providers.js';
import { isStreamingTts, type StreamingTtsProvider } from '../providers/tts.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Session } from '../schemas/session.js';
import { AnswerFailed } from '../respond/responder.js';
import type { CallControl } from './call-control.js';
import type { VoiceSessionDeps } from './voice-session-deps.js';
import type { SegmentTranscripts } from './segment-transcripts.js';
import { checkNoWords, type NoWordsCheck } from './no-words.js';
import type { PipelineSettings } from '../agents/pipeline-settings.js';

export interface StageContext {
  deps: VoiceSessionDeps;
  agent: StoredAgent;
  session: Session;
  settings: PipelineSettings;
  /** The rate the user's audio was captured at (the transport's input rate: 8000 on a phone call). */
  inputRate: number;
  /** The rate speech is played out at (the transport's output rate). */
  outputRate: number;
  /** Where the answer's call control goes (hang up, transfer) until its turn has played. */
  control?: CallControl | undefined;
  /** What a streaming recogniser decoded while the user spoke, when the preset's STT streams. */
  transcripts?: SegmentTranscripts | undefined;
}

/**
 * The real stages of a reply: the preset's STT, the webhook or LLM (with RAG context), the
 * preset's TTS resampled to the transport's rate. Each call is aborted when its Observable is
 * unsubscribed, and bounded in time (`deps.limits`). Every failure of a stage fails only its turn:
 * it becomes an error record (`stt_error`, `tts_error`, the answer's own type, or `turn_error` for
 * anything unexpected, which is logged as a bug too) and a StageFailure carrying the record's
 * id and type (the turn fails: the user is told why and hears the agent's `fallback_line`).
 */
export function voiceStages(ctx: StageContext): ReplyStages {
  const { deps, agent, session, settings } = ctx;
  const limits = deps.limits ?? defaultSpeechLimits;
  const streaming = streamingTts(ctx);
  return {
    transcribe: (audio, startMs) =>
      abortable(
        (signal) =>
          (startMs === undefined ? null : ctx.transcripts?.transcript(audio, startMs)) ??
          guardedStt(deps.speech.stt(settings.stt), limits).transcribe({
            audio,
            sampleRate: 16_000,
            model: settings.stt.model,
            language: settings.stt.language,
            phrases: agent.expected_phrases,
            phrasesOnly: agent.expected_phrases_only,
            capturedRate: ctx.inputRate,
            signal,
          }),
      ).pipe(recordProviderFailure(ctx, 'transcribe', 'stt_error')),

    answer: (transcript) =>
      abortable((signal) => answerStream(transcript, signal)).pipe(
        catchError((err: unknown) =>
          err instanceof AnswerFailed
            ? throwError(
                () => new StageFailure('answer', err.message, { id: err.errorId, type: err.reason }, { cause: err }),
              )
            : recordedFailure<string>(ctx, 'answer', 'turn_error', err),
        ),
      ),

    synthesize: (text) =>
      abortable((signal) =>
        resampleSpeech(
          guardedTts(deps.speech.tts(settings.tts), limits).synthesize({
            text,
            model: settings.tts.model,
            voice: settings.tts.voice,
            speed: settings.tts.speed,
            sampleRate: ctx.outputRate,
            signal,
          }),
          ctx.outputRate,
        ),
      ).pipe(recordProviderFailure(ctx, 'synthesize', 'tts_error')),

    ...(streaming === null
      ? {}
      : {
          synthesizeStream: (text) =>
            streamedSpeech(
              text,
              (signal) =>
                guardedTts(streaming, limits).openStream({
                  model: settings.tts.model,
                  voice: settings.tts.voice,
                  speed: settings.tts.speed,
                  sampleRate: ctx.outputRate,
                  signal,
                }),
              ctx.outputRate,
            ).pipe(recordProviderFailure(ctx, 'synthesize', 'tts_error')),
        }),

    noWords: (audio) =>
      abortable((signal) => checkNoWords(noWordsCheck(ctx), audio, signal)).pipe(
        ignoreElements(),
        recordProviderFailure(ctx, 'transcribe', 'stt_error'),
      ),
  };

  async function* answerStream(transcript: string, signal: AbortSignal): AsyncIterable<string> {
    const { context } = await deps.rag.retrieveContext(agent, transcript, session.id);
    yield* deps.responder.stream(
      agent,
      {
        sessionId: session.id,
        conversationId: session.conversation_id,
        transcript,
        userId: session.user_id,
        context,
        session,
        channel: 'voice',
        turn: null,
        // An answer that arrives after barge-in aborted its turn asks for nothing.
        onAction: (action) => {
          if (!signal.aborted) ctx.control?.request(action);
        },
      },
      settings.llm,
      signal,
    );
  }
}

/**
 * The preset's TTS when it takes text as it is produced (elevenlabs), else null: the answer is
 * spoken sentence by sentence. A provider that cannot be built is left to `synthesize`, which
 * records why at the first sentence, as for any other provider.
 */
function streamingTts({ deps, settings, session }: StageContext): StreamingTtsProvider | null {
  try {
    const tts = deps.speech.tts(settings.tts);
    return isStreamingTts(tts) ? tts : null;
  } catch (err) {
    deps.logger.debug({ err, session_id: session.id }, 'no streaming TTS for this session');
    return null;
  }
}

function noWordsCheck({ deps, agent, session, settings, inputRate }: StageContext): NoWordsCheck {
  const { model, language } = settings.stt;
  return {
    stt: guardedStt(deps.speech.stt(settings.stt), deps.limits ?? defaultSpeechLimits),
    request: {
      sampleRate: 16_000,
      model,
      language,
      phrases: agent.expected_phrases,
      phrasesOnly: agent.expected_phrases_only,
      capturedRate: inputRate,
    },
    logger: deps.logger,
    sessionId: session.id,
  };
}

/** A provider's failure becomes an error record of `type` and a StageFailure pointing at it. */
function recordProviderFailure<T>(ctx: StageContext, stage: ReplyStage, type: string): OperatorFunction<T, T> {
  return catchError((err: unknown): Observable<T> => recordedFailure(ctx, stage, type, err));
}

/**
 * Any failure of a stage as an error record and a StageFailure: a ProviderError is recorded as
 * `type`, anything else (a bug, a store outage) as `turn_error` after logging it as a bug. Either
 * way the turn fails (sessions/turn-failure.ts) and the session goes on.
 */
function recordedFailure<T>(ctx: StageContext, stage: ReplyStage, type: string, err: unknown): Observable<T> {
  if (err instanceof StageFailure) return throwError(() => err);
  const provider = err instanceof ProviderError ? err.provider : null;
  const message = err instanceof Error ? err.message : String(err);
  const recordType = provider === null ? 'turn_error' : type;
  if (provider === null)
    ctx.deps.logger.error({ err, session_id: ctx.session.id, stage }, 'unexpected failure in a turn; the turn fails');
  return defer(async () => {
    const errorId = await ctx.deps.store.errors
      .record({
        type: recordType,
        message: provider === null ? `${stage} failed: ${message}` : message,
        agent_id: ctx.agent.id,
        session_id: ctx.session.id,
        details: provider === null ? { stage } : { provider },
      })
      .then(
        (record) => record.id,
        (writeErr: unknown) => {
          ctx.deps.logger.error({ err: writeErr, type: recordType }, 'could not write error record');
          return null;
        },
      );
    throw new StageFailure(stage, message, { id: errorId, type: recordType }, { cause: err });
  });
}
