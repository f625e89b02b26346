import { interruptsAtEnd, interruptsSoFar } from './turn-words/barge-in.js';
import { endpointingWaitMs } from './turn-words/endpointing.js';
import { isBackchannel, saysAny } from './turn-words/phrases.js';
import { joinSegments } from './turn-words/utterance.js';
import type { AudioInput, SessionContext, SessionEvent, SessionMachineInput, TurnInput } from './session.types.js';

/**
 * The context updates of the session machine's actions, and its larger guards, as plain functions
 * of the context and the event: session.machine.ts wires them in with `assign` and `guards`.
 */

type Update = Partial<SessionContext>;

/** A new session's context: its settings, and no turn yet. */
export function initialContext(input: SessionMachineInput): SessionContext {
  return {
    ...input,
    turn: 0,
    pending: null,
    confirmed: false,
    held: null,
    waitMs: 0,
    queued: null,
    transcript: null,
    overheard: null,
    overlapLongEnough: false,
    endReason: null,
    error: null,
    action: null,
  };
}

export function startTurn(context: SessionContext, event: SessionEvent): Update {
  let pending: TurnInput | null = context.pending;
  if (event.type === 'TEXT') pending = turnInput(event);
  else if (event.type === 'SPEECH_END') pending = joined(context.held, segment(event));
  return {
    turn: context.turn + 1,
    pending,
    held: null,
    confirmed: pending?.kind === 'text' || !context.turnTaking.smart,
    transcript: pending?.kind === 'text' ? pending.text : null,
  };
}

export function startQueuedTurn(context: SessionContext): Update {
  return {
    turn: context.turn + 1,
    pending: context.queued,
    confirmed: true,
    queued: null,
    transcript: context.queued?.kind === 'text' ? context.queued.text : null,
  };
}

/** The interrupting speech, already transcribed, is the next turn. */
export function startOverheardTurn(context: SessionContext): Update {
  return {
    turn: context.turn + 1,
    pending: context.overheard,
    confirmed: !context.turnTaking.smart,
    transcript: null,
    overheard: null,
  };
}

/** The user went on after the short silence: drop the tentative turn, keep its audio. */
export function holdUtterance(context: SessionContext): Update {
  return {
    turn: context.turn - 1,
    held: context.pending?.kind === 'audio' ? context.pending : null,
    pending: null,
    transcript: null,
  };
}

export function dropTurn(context: SessionContext): Update {
  return { turn: context.turn - 1, pending: null, transcript: null };
}

export function heard(context: SessionContext, event: SessionEvent): Update {
  if (event.type !== 'TRANSCRIBED') return {};
  const spoken = context.pending?.kind === 'audio' ? event.at - context.pending.speechEndedAt : 0;
  const wait = endpointingWaitMs(event.text, context.turnTaking.waits, event.complete);
  return { transcript: event.text, waitMs: Math.max(0, wait - spoken) };
}

/** Speech over the answer (interruptions off) is answered next: all of it, its segments joined. */
export function queueUtterance(context: SessionContext, event: SessionEvent): Update {
  if (event.type !== 'SPEECH_END') return {};
  const held = context.queued?.kind === 'audio' ? context.queued : null;
  return { queued: joined(held, segment(event)) };
}

export function overhear(context: SessionContext, event: SessionEvent): Update {
  return event.type === 'SPEECH_END' ? { overheard: joined(context.overheard, segment(event)) } : {};
}

export function keepTranscript(context: SessionContext, event: SessionEvent): Update {
  return event.type === 'OVERHEARD' && context.overheard !== null
    ? { overheard: { ...context.overheard, transcript: event.text } }
    : {};
}

export function failed(event: object): Update {
  return {
    endReason: 'error' as const,
    error: 'error' in event ? describe(event.error) : 'unknown error',
  };
}

export function endOfTurnLikely(context: SessionContext, event: SessionEvent): boolean {
  return event.type === 'END_OF_TURN' && event.probability >= context.turnTaking.smartTurnThreshold;
}

/** The speech over the agent says a stop word: in its transcript, or in its hypothesis so far. */
export function saysStop(context: SessionContext, event: SessionEvent): boolean {
  const text = event.type === 'OVERHEARD' ? event.text : event.type === 'OVERHEARING' ? event.partial : '';
  return saysAny(text, context.turnTaking.stopWords);
}

/**
 * Speech over the agent that lasted long enough and says more than an acknowledgement: at least
 * two words besides acknowledgements and fillers (turn-words/barge-in.ts; a recogniser's string of
 * letters for a murmur is not words).
 */
export function realInterruption(context: SessionContext, event: SessionEvent): boolean {
  return (
    event.type === 'OVERHEARD' &&
    context.overlapLongEnough &&
    !isBackchannel(event.text, context.turnTaking.backchannelWords) &&
    interruptsAtEnd(event.text, context.turnTaking.backchannelWords)
  );
}

/** The speech over the agent, still going on, has lasted long enough and says enough (turn-words/barge-in.ts). */
export function realInterruptionSoFar(context: SessionContext, event: SessionEvent): boolean {
  return (
    event.type === 'OVERHEARING' &&
    context.overlapLongEnough &&
    interruptsSoFar(event, context.turnTaking.backchannelWords)
  );
}

/**
 * Interrupted while the user still talks: the segments heard so far (before a short pause) are
 * held, so the one that ends the speech is joined to them: the next turn is all of it.
 */
export function holdOverheard(context: SessionContext): Update {
  return { held: context.overheard, overheard: null };
}

function turnInput(event: Extract<SessionEvent, { type: 'SPEECH_END' } | { type: 'TEXT' }>): TurnInput {
  return event.type === 'TEXT' ? { kind: 'text', text: event.text, receivedAt: event.receivedAt } : segment(event);
}

function segment(event: Extract<SessionEvent, { type: 'SPEECH_END' }>): AudioInput {
  const { audio, startMs, durationMs, speechEndedAt, decidedAt } = event;
  return { kind: 'audio', audio, startMs, durationMs, speechEndedAt, decidedAt };
}

/** `next` appended to the utterance held so far (speech after a short silence). */
function joined(held: AudioInput | null, next: AudioInput): AudioInput {
  if (held === null) return next;
  const { audio, startMs } = joinSegments(held, next);
  return { ...next, audio, startMs, durationMs: audio.length / 16 };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
