import {
  concat,
  defer,
  EMPTY,
  filter,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  race,
  ReplaySubject,
  shareReplay,
  Subject,
  take,
  takeUntil,
  tap,
  timer,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import type { PlayoutEvent, SpeechChunk } from '../pipeline/reply/playout.js';
import { reply, type ReplyEvent, type ReplySource, type ReplyStages } from '../pipeline/reply/reply.js';
import type { CallControl } from './call-control.js';
import { transcriptEnding } from '../../machines/turn-words/endpointing.js';
import type { StatementVerdict } from '../pipeline/turn/statement-end.js';
import { TurnReport, type TurnOrigin, type TurnScope } from '../session-writes/turn-report.js';
import { failureMessage, fallbackEvents, type TurnFailed } from './turn-failure.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { ServerEvent } from './transport/messages.js';

export interface TurnGraph extends TurnScope {
  /** Where the user is told how the turn goes (captions, audio start and end, a failure). */
  transport: Pick<MediaTransport, 'send' | 'outputSampleRate'>;
  stages: ReplyStages;
  /** Paces speech out to the transport (a `playout`). */
  speak: OperatorFunction<SpeechChunk, PlayoutEvent>;
  /** Call control the turn's answer asks for (hang up, transfer), carried out once it has played. */
  control?: CallControl | undefined;
  /** The highest turn the machine has confirmed (`turn_started`), replayed to each subscriber. */
  confirmations: Observable<number>;
  /**
   * Whether an unpunctuated transcript of an utterance (16 kHz audio) is a finished statement
   * (src/pipeline/turn/statement-end.ts); absent or null: no evidence, the words alone decide.
   */
  statementEnd?: ((transcript: string, audio: Int16Array) => StatementVerdict | null) | undefined;
}

/**
 * The events a reply actor sends the session machine: the reply graph for one turn, reported to
 * the client (`told`) and the records (TurnReport) as it goes, then TRANSCRIBED / AUDIO_STARTED and, once
 * the graph has completed (a failed user turn: once its fallback line has played, turn-failure.ts),
 * ACT when the answer asked for call control, else REPLY_DONE or REPLY_FAILED (SPEAK_DONE for the
 * greeting). When the machine stops the actor first, the graph is unsubscribed and the report records the cut.
 *
 * A tentative turn (`confirmed` false: smart endpointing at the short silence) runs ahead but
 * holds back until the machine confirms it: its audio (buffered, not sent), its report (nothing
 * sent to the client, nothing stored) and, in passthrough mode, the webhook call (SPEC §4.5: once
 * per utterance). TRANSCRIBED goes to the machine at once: endpointing reads it. If the user goes
 * on, the machine drops the turn and everything prepared is unsubscribed, HTTP calls aborted.
 */
export function turnEvents(
  graph: TurnGraph,
  turn: number,
  origin: TurnOrigin,
  confirmed = true,
): Observable<SessionEvent> {
  return defer(() => {
    const confirmedAt$: Observable<number> = (
      confirmed
        ? of(graph.now())
        : graph.confirmations.pipe(
            filter((t) => t >= turn),
            take(1),
            map(() => graph.now()),
          )
    ).pipe(shareReplay({ bufferSize: 1, refCount: true }));
    if (origin.kind !== 'say') graph.control?.reset();
    let report: TurnReport | null = null;
    /** A tentative turn's events before confirmation, with when each happened. */
    const held: { event: ReplyEvent; at: number }[] = [];
    const startedAt = graph.now();
    let failure: TurnFailed | null = null;
    const repliedEnd$ = new Subject<void>();
    const outcome = (): SessionEvent => {
      if (origin.kind === 'say') return { type: 'SPEAK_DONE' };
      // The answer asked to hang up or transfer: its words have played (or failed to), so act now.
      const action = graph.control?.take() ?? null;
      if (action !== null) return { type: 'ACT', action };
      return failure === null ? { type: 'REPLY_DONE' } : { type: 'REPLY_FAILED', error: failure.message };
    };
    const stages = gatedStages(graph, origin, confirmed, confirmedAt$);
    const speak = afterConfirmation(confirmedAt$, graph.speak);
    const replied = reply(replySource(origin), stages, speak);
    const line = graph.agent.fallback_line;
    const fallback = defer(() =>
      failure === null || origin.kind === 'say'
        ? EMPTY
        : fallbackEvents({ transport: graph.transport, stages: graph.stages, line }, failure, turn, speak),
    );
    /** A tentative turn whose transcription failed is reported as failed all the same. */
    const reportFailure = defer(() => {
      if (report === null && held.some((e) => e.event.type === 'failed')) {
        report = new TurnReport(graph, turn, origin, startedAt);
        for (const { event, at } of held.splice(0)) told(graph, report, event, at);
      }
      return EMPTY;
    });
    return concat(
      merge(
        confirmedAt$.pipe(
          tap((at) => {
            report = new TurnReport(graph, turn, decidedAt(origin, at), startedAt);
            for (const early of held.splice(0)) told(graph, report, early.event, early.at);
          }),
          ignoreElements(),
          // a reply that ends unconfirmed (nothing said, or STT failed) ends the turn without it
          takeUntil(repliedEnd$),
        ),
        replied.pipe(
          tap({
            next: (event) => {
              if (event.type === 'failed') failure = event;
              if (report === null) held.push({ event, at: graph.now() });
              else told(graph, report, event);
            },
            complete: () => repliedEnd$.next(),
            unsubscribe: () => report?.cut(),
          }),
          mergeMap((event) => toMachine(event, report, graph.now(), judged(graph, origin))),
        ),
      ),
      reportFailure,
      fallback,
      defer(() => of(outcome())),
    );
  });
}

/** A reply event goes to the turn's records, then to the user as the message it makes, if any. */
function told(graph: TurnGraph, report: TurnReport, event: ReplyEvent, at?: number): void {
  report.on(event, at);
  const message = userMessage(event, report, graph.transport.outputSampleRate);
  if (message !== null) graph.transport.send(message);
}

/**
 * What the user is told of a reply event: the `transcript`, `response` captions sentence by
 * sentence then whole, `audio_start` just before the first frame, `audio_end` once played, and
 * a failed turn's error (with its reason).
 */
function userMessage(event: ReplyEvent, report: TurnReport, sampleRate: number): ServerEvent | null {
  const { turn } = report;
  switch (event.type) {
    case 'transcribed':
      return event.text === '' ? null : { type: 'transcript', turn, text: event.text };
    case 'sentence':
      return { type: 'response', turn, text: report.answerSoFar, final: false };
    case 'answered':
      return { type: 'response', turn, text: event.text, final: true };
    case 'sentence_audio':
      return report.startsAudio(event) ? { type: 'audio_start', turn, sample_rate: sampleRate } : null;
    case 'played':
      return event.samples > 0 ? { type: 'audio_end', turn } : null;
    case 'failed':
      return failureMessage(event);
  }
}

/**
 * When the answer may start. In passthrough mode the webhook answers only confirmed turns (SPEC
 * §4.5: once per utterance). In enhanced mode a tentative turn's LLM starts ahead, once the user
 * has been silent `preemptive_silence_ms` (transcription ran from the first silent window), or
 * at confirmation if that comes first; a transcript that reads as a finished sentence or a whole
 * question starts it at once (its turn is confirmed at the shortest wait anyway). With a
 * recogniser that is done a few ms after the first silent window, that gate was the wait.
 */
function gatedStages(
  graph: TurnGraph,
  origin: TurnOrigin,
  confirmed: boolean,
  confirmedAt$: Observable<number>,
): ReplyStages {
  const stages = confirmed ? graph.stages : { ...graph.stages, noWords: heldNoWords(graph.stages, confirmedAt$) };
  let gate: Observable<unknown>;
  if (graph.agent.mode === 'passthrough') gate = confirmedAt$;
  else if (confirmed || origin.kind !== 'audio') return stages;
  else {
    const preemptAt = origin.speechEndedAt + graph.agent.preemptive_silence_ms;
    gate = race(
      confirmedAt$,
      defer(() => timer(Math.max(0, preemptAt - graph.now()))),
    );
  }
  const enhanced = graph.agent.mode !== 'passthrough';
  return {
    ...stages,
    answer: (transcript) =>
      concat(
        enhanced && finished(transcript) ? EMPTY : gate.pipe(take(1), ignoreElements()),
        defer(() => graph.stages.answer(transcript)),
      ),
  };
}

/**
 * A tentative turn with no words is not judged until the machine confirms it: the user may go on,
 * and then its audio is the start of the next utterance (a phrase cut at a pause has no words of
 * its own under a grammar). Until then the reply stays open, so the machine waits as for unfinished words.
 */
function heldNoWords(stages: ReplyStages, confirmedAt$: Observable<number>): ReplyStages['noWords'] {
  return (audio) =>
    concat(
      confirmedAt$.pipe(take(1), ignoreElements()),
      defer(() => stages.noWords?.(audio) ?? EMPTY),
    );
}

function finished(transcript: string): boolean {
  const ending = transcriptEnding(transcript);
  return ending === 'punctuation' || ending === 'question';
}

/**
 * Speech is synthesized ahead but buffered, and played only once the turn is confirmed. A failure
 * of the speech goes out of the first branch (the merge ends the turn with it), never through the
 * buffer: `tap(subject)` would subscribe the subject with no error handler and throw it again from
 * a timer, out of the session.
 */
function afterConfirmation(
  confirmedAt$: Observable<number>,
  speak: OperatorFunction<SpeechChunk, PlayoutEvent>,
): OperatorFunction<SpeechChunk, PlayoutEvent> {
  return (chunks) =>
    defer(() => {
      const buffered = new ReplaySubject<SpeechChunk>();
      return merge(
        chunks.pipe(
          tap({ next: (chunk) => buffered.next(chunk), complete: () => buffered.complete() }),
          ignoreElements(),
        ),
        concat(confirmedAt$.pipe(ignoreElements()), buffered).pipe(speak),
      );
    });
}

/** For a tentative turn, the turn was decided when the machine confirmed it. */
function decidedAt(origin: TurnOrigin, at: number): TurnOrigin {
  return origin.kind === 'audio' ? { ...origin, decidedAt: Math.max(origin.decidedAt, at) } : origin;
}

function replySource(origin: TurnOrigin): ReplySource {
  if (origin.kind === 'audio')
    return origin.transcript === undefined
      ? { kind: 'audio', audio: origin.audio, startMs: origin.startMs }
      : { kind: 'text', text: origin.transcript };
  return { kind: origin.kind, text: origin.text };
}

/**
 * What the audio says of a transcript of this turn's utterance, when there is something to judge
 * (TRANSCRIBED's `complete`): an unpunctuated transcript that is no question is a finished
 * statement or not; a question without punctuation is unfinished (false) when the voice stopped at
 * full strength, and otherwise stands (null).
 */
function judged(graph: TurnGraph, origin: TurnOrigin): (transcript: string) => boolean | null {
  const judge = graph.statementEnd;
  if (judge === undefined || origin.kind !== 'audio' || origin.transcript !== undefined) return () => null;
  return (transcript) => {
    const ending = transcriptEnding(transcript);
    if (ending !== 'other' && ending !== 'question') return null;
    const verdict = judge(transcript, origin.audio);
    if (verdict === null) return null;
    if (ending === 'other') return verdict.complete;
    return verdict.fadedOut ? null : false;
  };
}

function toMachine(
  event: ReplyEvent,
  report: TurnReport | null,
  now: number,
  complete: (transcript: string) => boolean | null,
): Observable<SessionEvent> {
  if (event.type === 'transcribed' && event.text !== '') {
    const verdict = complete(event.text);
    return of({ type: 'TRANSCRIBED', text: event.text, at: now, ...(verdict === null ? {} : { complete: verdict }) });
  }
  if (report?.startsAudio(event)) return of({ type: 'AUDIO_STARTED' });
  return EMPTY;
}
