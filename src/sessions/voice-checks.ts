import {
  catchError,
  distinctUntilChanged,
  EMPTY,
  exhaustMap,
  filter,
  interval,
  map,
  of,
  take,
  throwError,
  type Observable,
} from 'rxjs';
import type { Logger } from 'pino';
import { fromEventObservable } from 'xstate';
import type { AudioCheckInput, SessionEvent } from '../../machines/session.machine.js';
import { abortable } from '../pipeline/reply/abortable.js';
import type { ReplyStages } from '../pipeline/reply/reply.js';
import { StageFailure } from '../pipeline/reply/stage-failure.js';
import type { EndOfTurnModel } from '../pipeline/turn/end-of-turn-model.js';
import type { ServerEvent } from './transport/messages.js';
import type { SegmentTranscripts } from './segment-transcripts.js';
import type { UtteranceSoFar } from './utterance-so-far.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { VoiceSessionDeps } from './voice-session-deps.js';

/**
 * The end-of-turn model's verdict on a tentative turn (END_OF_TURN), or nothing without a model.
 * A model that fails leaves endpointing to the words: the failure is logged, nothing is sent.
 */
export function endOfTurnEvents(
  model: EndOfTurnModel | undefined,
  audio: Int16Array,
  logger: Logger,
): Observable<SessionEvent> {
  if (model === undefined) return EMPTY;
  return abortable((signal) => model.endOfTurn(audio, signal)).pipe(
    map((probability): SessionEvent => ({ type: 'END_OF_TURN', probability })),
    catchError((err: unknown) => {
      logger.warn({ err, model: model.label }, 'end-of-turn model failed; endpointing by the words');
      return EMPTY;
    }),
  );
}

/**
 * What the user said over the agent (OVERHEARD), to tell a barge-in from an acknowledgement. A
 * transcription that failed (already recorded as an error) counts as nothing said: playback
 * resumes, and the user is told (`tell`: a `turn_failed` error), so words left unheard leave a
 * trace on both sides.
 */
export function overheardEvents(
  stages: Pick<ReplyStages, 'transcribe'>,
  audio: Int16Array,
  startMs?: number,
  tell?: (message: Extract<ServerEvent, { type: 'error' }>) => void,
): Observable<SessionEvent> {
  return stages.transcribe(audio, startMs).pipe(
    take(1),
    map((text): SessionEvent => ({ type: 'OVERHEARD', text: text.trim() })),
    catchError((err: unknown) => {
      if (!(err instanceof StageFailure)) return throwError(() => err);
      tell?.({
        type: 'error',
        code: 'turn_failed',
        reason: err.reason,
        message: 'the speech over the answer was not heard',
      });
      return of<SessionEvent>({ type: 'OVERHEARD', text: '' });
    }),
  );
}

/** How often a streaming recogniser's hypothesis is read while the user talks over the agent. */
export const partialEveryMs = 50;
/** How often the audio so far is transcribed instead, when the STT cannot stream (one call at a time). */
export const checkpointEveryMs = 500;

/** Where what the user has said so far comes from: a streaming hypothesis, or the audio so far to transcribe. */
export type SaidSoFar =
  { partial: () => string } | { samples: () => Int16Array; transcribe: (audio: Int16Array) => Observable<string> };

/**
 * What the user has said so far while talking over the agent (OVERHEARING), each time it changes,
 * until the machine stops listening for it: a streaming recogniser's hypothesis, read every
 * `partialEveryMs`; else the audio so far, transcribed every `checkpointEveryMs` (an STT call
 * each). A checkpoint whose transcription fails (already recorded as an error) is skipped: the
 * transcript at the end of the speech still decides.
 */
export function overhearingEvents(soFar: SaidSoFar): Observable<SessionEvent> {
  const said =
    'partial' in soFar
      ? interval(partialEveryMs).pipe(map(() => soFar.partial()))
      : interval(checkpointEveryMs).pipe(
          exhaustMap(() => {
            const audio = soFar.samples();
            if (audio.length === 0) return EMPTY;
            return soFar.transcribe(audio).pipe(
              take(1),
              catchError((err: unknown) => (err instanceof StageFailure ? EMPTY : throwError(() => err))),
            );
          }),
        );
  return said.pipe(
    map((text) => text.trim()),
    distinctUntilChanged(),
    filter((text) => text !== ''),
    map((partial): SessionEvent => ({ type: 'OVERHEARING', partial })),
  );
}

/** What the machine's checks on the user's speech read. */
export interface CheckSources {
  stages: Pick<ReplyStages, 'transcribe'>;
  /** A streaming recogniser's transcripts, when the STT streams; else the audio so far. */
  transcripts: SegmentTranscripts | undefined;
  soFar: UtteranceSoFar | undefined;
  deps: Pick<VoiceSessionDeps, 'endOfTurn' | 'logger'>;
  /** Where the client is told (a `turn_failed` error). */
  transport: Pick<MediaTransport, 'send'>;
  /** Delivers an actor's events in the session's scope. */
  logged: (events: Observable<SessionEvent>) => Observable<SessionEvent>;
}

/** Where a session hears what the user has said so far: its streaming transcripts, else its audio so far. */
export function saidSoFar({
  stages,
  transcripts,
  soFar,
}: Pick<CheckSources, 'stages' | 'transcripts' | 'soFar'>): SaidSoFar | null {
  if (transcripts !== undefined) return { partial: () => transcripts.partial };
  if (soFar !== undefined)
    return { samples: () => soFar.samples(), transcribe: (audio: Int16Array) => stages.transcribe(audio) };
  return null;
}

/** The machine's `endOfTurn`, `overhear` and `overhearing` actors on a session's sources. */
export function checkActors(s: CheckSources) {
  const { stages } = s;
  const sayingSoFar = saidSoFar(s);
  return {
    endOfTurn: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) =>
      s.logged(endOfTurnEvents(s.deps.endOfTurn, input.audio, s.deps.logger)),
    ),
    overhear: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) =>
      s.logged(overheardEvents(stages, input.audio, input.startMs, (m) => s.transport.send(m))),
    ),
    overhearing: fromEventObservable<SessionEvent, void>(() =>
      sayingSoFar === null ? EMPTY : s.logged(overhearingEvents(sayingSoFar)),
    ),
  };
}
