import { catchError, defer, ignoreElements, throwError, type Observable, type OperatorFunction } from 'rxjs';
import { abortable } from '../pipeline/reply/abortable.js';
import type { ReplyStages } from '../pipeline/reply/reply.js';
import { resampleSpeech } from '../pipeline/reply/speech-resampler.js';
import { StageFailure, type ReplyStage } from '../pipeline/reply/stage-failure.js';
import { ProviderError } from '../providers/provider-error.js';
import type { StoredAgent } from '../records/agent.js';
import type { Session } from '../records/session.js';
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
 * unsubscribed; an expected failure becomes an error record and a StageFailure (silence for that
 * turn); anything else stays an error (a bug: the session ends).
 */
export function voiceStages(ctx: StageContext): ReplyStages {
  const { deps, agent, session, settings } = ctx;
  return {
    transcribe: (audio, startMs) =>
      abortable(
        (signal) =>
          (startMs === undefined ? null : ctx.transcripts?.transcript(audio, startMs)) ??
          deps.speech.stt(settings.stt).transcribe({
            audio,
            sampleRate: 16_000,
            model: settings.stt.model,
            language: settings.stt.language,
            phrases: agent.expected_phrases,
            capturedRate: ctx.inputRate,
            signal,
          }),
      ).pipe(recordProviderFailure(ctx, 'transcribe', 'stt_error')),

    answer: (transcript) =>
      abortable((signal) => answerStream(transcript, signal)).pipe(
        catchError((err: unknown) =>
          throwError(() =>
            err instanceof AnswerFailed ? new StageFailure('answer', err.message, err.errorId, { cause: err }) : err,
          ),
        ),
      ),

    synthesize: (text) =>
      abortable((signal) =>
        resampleSpeech(
          deps.speech.tts(settings.tts).synthesize({
            text,
            model: settings.tts.model,
            voice: settings.tts.voice,
            speed: settings.tts.speed,
            signal,
          }),
          ctx.outputRate,
        ),
      ).pipe(recordProviderFailure(ctx, 'synthesize', 'tts_error')),

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

function noWordsCheck({ deps, agent, session, settings, inputRate }: StageContext): NoWordsCheck {
  const { model, language } = settings.stt;
  return {
    stt: deps.speech.stt(settings.stt),
    request: { sampleRate: 16_000, model, language, phrases: agent.expected_phrases, capturedRate: inputRate },
    logger: deps.logger,
    sessionId: session.id,
  };
}

/** A ProviderError becomes an error record of `type` and a StageFailure pointing at it. */
function recordProviderFailure<T>(ctx: StageContext, stage: ReplyStage, type: string): OperatorFunction<T, T> {
  return catchError((err: unknown): Observable<T> => {
    if (!(err instanceof ProviderError)) return throwError(() => err);
    return defer(async () => {
      const errorId = await ctx.deps.store.errors
        .record({
          type,
          message: err.message,
          agent_id: ctx.agent.id,
          session_id: ctx.session.id,
          details: { provider: err.provider },
        })
        .then(
          (record) => record.id,
          (writeErr: unknown) => {
            ctx.deps.logger.error({ err: writeErr, type }, 'could not write error record');
            return null;
          },
        );
      throw new StageFailure(stage, err.message, errorId, { cause: err });
    });
  });
}
