import {
  catchError,
  distinctUntilChanged,
  EMPTY,
  filter,
  interval,
  map,
  of,
  scan,
  take,
  throwError,
  timer,
  type Observable,
} from 'rxjs';
import type { Logger } from 'pino';
import { fromEventObservable } from 'xstate';
import type { AudioCheckInput, SessionEvent } from '../../machines/session.machine.js';
import { twoWordsAfterMs } from '../../machines/turn-words/barge-in.js';
import { holdsLoneLetter } from '../../machines/turn-words/phrases.js';
import { abortable } from '../pipeline/reply/abortable.js';
import type { ReplyStages } from '../pipeline/reply/reply.js';
import { StageFailure } from '../pipeline/reply/stage-failure.js';
import type { EndOfTurnModel } from '../pipeline/turn/end-of-turn-model.js';
import { StatementEnd, type StatementVerdict } from '../pipeline/turn/statement-end.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { ServerEvent } from './transport/messages.js';
import type { SegmentTranscripts } from './segment-transcripts.js';
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
/**
 * Without one (an STT that cannot stream), how long speech over the agent must go on without a
 * pause to interrupt it: longer than an acknowledgement lasts (a slow "mm-hmm": ~1.1 s).
 */
export const longSpeechMs = 1_500;

type Overhearing = Extract<SessionEvent, { type: 'OVERHEARING' }>;

/**
 * What is known of the speech over the agent while it goes on, until the machine stops listening
 * for it: a streaming recogniser's hypothesis so far (`partial`), read every `partialEveryMs` and
 * sent (OVERHEARING, with the ms since the onset) each time it changes, and once more unchanged
 * when the speech reaches `twoWordsAfterMs` (two words may interrupt from then on), with whether
 * a hypothesis so far held a lone letter (`murmured`); without one (null), only that it has gone on for
 * `longSpeechMs` (LONG_SPEECH): no words to read, and no STT call spent on speech still going on.
 */
export function overhearingEvents(partial: (() => string) | null): Observable<SessionEvent> {
  if (partial === null) return timer(longSpeechMs).pipe(map((): SessionEvent => ({ type: 'LONG_SPEECH' })));
  const late = (speechMs: number) => speechMs >= twoWordsAfterMs;
  return interval(partialEveryMs).pipe(
    map((k) => ({ partial: partial().trim(), speechMs: (k + 1) * partialEveryMs })),
    // a hypothesis that has not changed is sent again once, when two of its words may interrupt
    distinctUntilChanged((a, b) => a.partial === b.partial && late(a.speechMs) === late(b.speechMs)),
    filter(({ partial: text }) => text !== ''),
    map((heard): Overhearing => ({ type: 'OVERHEARING', ...heard, murmured: holdsLoneLetter(heard.partial) })),
    // once a hypothesis of this speech held a lone letter, every later one is murmured too
    scan((before: Overhearing, event: Overhearing) => ({ ...event, murmured: before.murmured || event.murmured })),
  );
}

/** What the machine's checks on the user's speech read. */
export interface CheckSources {
  stages: Pick<ReplyStages, 'transcribe'>;
  /** A streaming recogniser's transcripts, when the STT streams. */
  transcripts: SegmentTranscripts | undefined;
  deps: Pick<VoiceSessionDeps, 'endOfTurn' | 'logger'>;
  /** Where the client is told (a `turn_failed` error). */
  transport: Pick<MediaTransport, 'send'>;
  /** Delivers an actor's events in the session's scope. */
  logged: (events: Observable<SessionEvent>) => Observable<SessionEvent>;
}

/** The machine's `endOfTurn`, `overhear` and `overhearing` actors on a session's sources. */
export function checkActors(s: CheckSources) {
  const { stages, transcripts } = s;
  const partial = transcripts === undefined ? null : () => transcripts.partial;
  return {
    endOfTurn: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) =>
      s.logged(endOfTurnEvents(s.deps.endOfTurn, input.audio, s.deps.logger)),
    ),
    overhear: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) =>
      s.logged(overheardEvents(stages, input.audio, input.startMs, (m) => s.transport.send(m))),
    ),
    overhearing: fromEventObservable<SessionEvent, void>(() => s.logged(overhearingEvents(partial))),
  };
}

/**
 * The session's statement-end rule (one per session: it learns the speaker's pitch floor), as the
 * turn graph asks for it: its verdict (a finished statement or not, and whether the voice faded
 * out), logged with its evidence; undefined without
 * a language model on the box or with the rule off for the agent (`statement_end_threshold` null).
 */
export function statementEnds(
  deps: Pick<VoiceSessionDeps, 'sentenceEnds' | 'logger'>,
  agent: Pick<StoredAgent, 'statement_end_threshold' | 'statement_end_pitch' | 'endpointing_mode'>,
  sessionId: string,
): ((transcript: string, audio: Int16Array) => StatementVerdict | null) | undefined {
  if (deps.sentenceEnds === undefined || agent.endpointing_mode !== 'smart' || agent.statement_end_threshold === null)
    return undefined;
  const rule = new StatementEnd(deps.sentenceEnds, {
    lmThreshold: agent.statement_end_threshold,
    pitchCheck: agent.statement_end_pitch,
  });
  return (transcript, audio) => {
    const verdict = rule.judge(transcript, audio, 16_000);
    deps.logger.debug({ session_id: sessionId, transcript, ...verdict }, 'statement end judged');
    return verdict;
  };
}
