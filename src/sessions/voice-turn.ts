import { concat, defer, EMPTY, mergeMap, of, tap, type Observable, type OperatorFunction } from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import type { PlayoutEvent, SpeechChunk } from '../pipeline/reply/playout.js';
import { reply, type ReplyEvent, type ReplySource, type ReplyStages } from '../pipeline/reply/reply.js';
import type { CallControl } from '../actions/call-control.js';
import { TurnReport, type TurnOrigin, type TurnScope } from './turn-report.js';

export interface TurnGraph extends TurnScope {
  stages: ReplyStages;
  /** Paces speech out to the transport (a `playout`). */
  speak: OperatorFunction<SpeechChunk, PlayoutEvent>;
  /** Call control the turn's answer asks for (hang up, transfer), carried out once it has played. */
  control?: CallControl | undefined;
}

/**
 * The events a reply actor sends the session machine: the reply graph for one turn, reported to
 * the client and the records as it goes (TurnReport), then TRANSCRIBED / AUDIO_STARTED and, once
 * the graph has completed, ACT when the answer asked for call control, else REPLY_DONE or
 * REPLY_FAILED (SPEAK_DONE for the greeting). When the
 * machine stops the actor first, the graph is unsubscribed and the report records the cut.
 */
export function turnEvents(graph: TurnGraph, turn: number, origin: TurnOrigin): Observable<SessionEvent> {
  return defer(() => {
    const report = new TurnReport(graph, turn, origin);
    if (origin.kind !== 'say') graph.control?.reset();
    const outcome = (): SessionEvent => {
      if (origin.kind === 'say') return { type: 'SPEAK_DONE' };
      // The answer asked to hang up or transfer: its words have played (or failed to), so act now.
      const action = graph.control?.take() ?? null;
      if (action !== null) return { type: 'ACT', action };
      return report.failed === null ? { type: 'REPLY_DONE' } : { type: 'REPLY_FAILED', error: report.failed };
    };
    return concat(
      reply(replySource(origin), graph.stages, graph.speak).pipe(
        tap({ next: (event) => report.on(event), unsubscribe: () => report.cut() }),
        mergeMap((event) => toMachine(event, report)),
      ),
      defer(() => of(outcome())),
    );
  });
}

function replySource(origin: TurnOrigin): ReplySource {
  if (origin.kind === 'audio') return { kind: 'audio', audio: origin.audio };
  return { kind: origin.kind, text: origin.text };
}

function toMachine(event: ReplyEvent, report: TurnReport): Observable<SessionEvent> {
  if (event.type === 'transcribed' && event.text !== '') return of({ type: 'TRANSCRIBED', text: event.text });
  if (report.startsAudio(event)) return of({ type: 'AUDIO_STARTED' });
  return EMPTY;
}
