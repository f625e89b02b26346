import { catchError, EMPTY, map, mergeMap, of, throwError, type Observable, type OperatorFunction } from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import type { PlayoutEvent, SpeechChunk } from '../pipeline/reply/playout.js';
import type { ReplyEvent, ReplyStages } from '../pipeline/reply/reply.js';
import { StageFailure } from '../pipeline/reply/stage-failure.js';
import { notConfiguredMessage } from '../respond/answer-failure.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { ServerEvent } from './transport/messages.js';

/** A reply's failure: which stage, why (its error record's type), and the record. */
export type TurnFailed = Extract<ReplyEvent, { type: 'failed' }>;

/**
 * What the user is told of a failed turn: `turn_failed` (the code clients already know) with the
 * error record's type as `reason`; the message names every fix when no LLM can run here (the
 * failure's message is then readiness' problem for the agent's LLM), else it says only that the
 * turn had no answer (the record keeps the detail for the operator).
 */
export function failureMessage(failure: TurnFailed): Extract<ServerEvent, { type: 'error' }> {
  const message =
    failure.reason === 'llm_not_configured' ? notConfiguredMessage(failure.message) : 'no answer for this turn';
  return { type: 'error', code: 'turn_failed', reason: failure.reason, message };
}

export interface FallbackGraph {
  transport: Pick<MediaTransport, 'send' | 'outputSampleRate'>;
  stages: Pick<ReplyStages, 'synthesize'>;
  /** The agent's `fallback_line` ('' for none). */
  line: string;
}

/**
 * The agent's fallback line for a failed user turn, spoken by its TTS through the turn's playout
 * (`speak`: held until the turn is confirmed, like an answer): `audio_start` at its first frame and
 * `audio_end` once played, numbered as the failed turn, and AUDIO_STARTED to the machine so the
 * user may talk over it as over an answer. Nothing is said when the line is empty or when the TTS
 * is what failed (it cannot speak: that turn stays silent). It is audio, so every transport plays
 * it. It is not stored as the turn's answer: the turn's agent message stays `failed`, pointing at
 * its error record. If the fallback's own speech fails, that failure is recorded (`tts_error`) by
 * the stage and the turn ends without it.
 */
export function fallbackEvents(
  graph: FallbackGraph,
  failure: TurnFailed,
  turn: number,
  speak: OperatorFunction<SpeechChunk, PlayoutEvent>,
): Observable<SessionEvent> {
  if (graph.line === '' || failure.stage === 'synthesize') return EMPTY;
  const { transport } = graph;
  return graph.stages.synthesize(graph.line).pipe(
    map((samples): SpeechChunk => ({ sentence: 0, samples })),
    speak,
    mergeMap((event): Observable<SessionEvent> => {
      if (event.type === 'sentence_audio') {
        transport.send({ type: 'audio_start', turn, sample_rate: transport.outputSampleRate });
        return of({ type: 'AUDIO_STARTED' });
      }
      if (event.samples > 0) transport.send({ type: 'audio_end', turn });
      return EMPTY;
    }),
    // The stage recorded it (an error record of its own); the turn has failed already.
    catchError((err: unknown) => (err instanceof StageFailure ? EMPTY : throwError(() => err))),
  );
}
