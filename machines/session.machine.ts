import { EMPTY } from 'rxjs';
import { assign, emit, fromEventObservable, fromPromise, setup, type ActorRefFrom } from 'xstate';

/**
 * The state of one voice conversation. Pure: it imports nothing from src/. Audio never passes
 * through it; it invokes three RxJS graphs (src/pipeline, provided by src/sessions with
 * `machine.provide({ actors })`) as `fromEventObservable` actors and reacts to the events they send:
 * - `listen` (the whole session): the microphone graph and the client's messages; sends
 *   SPEECH_START, SPEECH_END, TEXT and HANGUP.
 * - `speak`: says a fixed text (the greeting); sends SPEAK_DONE when playback has finished.
 * - `reply`: one user turn: transcribe (for audio), answer, speak; sends TRANSCRIBED, AUDIO_STARTED
 *   and REPLY_DONE / REPLY_FAILED.
 * Leaving the state that invoked an actor unsubscribes its graph; each stage's teardown aborts its
 * HTTP call or flushes its audio. That is barge-in, and the decision to do it lives here alone.
 * An error in a graph (a bug, not a provider failure) ends the session with reason `error`.
 * Side effects on the outside world (telling the client, storing records) hang off emitted events:
 * `interrupted`, `turn_started`, `ended`.
 */

export type EndReason =
  'idle_timeout' | 'max_duration' | 'client_hangup' | 'error' | 'shutdown' | 'agent_hangup' | 'transferred';

/**
 * Call control an answer asked for (src/actions): hang up, or hand the caller over to `to`. The
 * reply actor sends ACT once the closing words have played; the `act` actor carries it out.
 */
export type CallAction = { type: 'end_call' } | { type: 'transfer'; to: string | null };

/** What a turn starts from: a finished utterance or a typed message. Times are wall-clock ms. */
export type TurnInput =
  | { kind: 'audio'; audio: Int16Array; durationMs: number; speechEndedAt: number; decidedAt: number }
  | { kind: 'text'; text: string; receivedAt: number };

export interface SessionMachineInput {
  greeting: string | null;
  interruptionsEnabled: boolean;
  /** User speech must overlap agent speech this long before it interrupts. */
  interruptionMinSpeechMs: number;
  idleTimeoutMs: number;
  maxDurationMs: number;
}

export interface SessionContext extends SessionMachineInput {
  /** Turns started so far; the current turn's number while one runs. */
  turn: number;
  pending: TurnInput | null;
  /** An utterance finished while the agent was answering with interruptions off: the next turn. */
  queued: TurnInput | null;
  /** Transcript of the current turn, once known. */
  transcript: string | null;
  endReason: EndReason | null;
  error: string | null;
  /** The call control being carried out (state `acting`). */
  action: CallAction | null;
}

export type SessionEvent =
  | { type: 'SPEECH_START' }
  | {
      type: 'SPEECH_END';
      audio: Int16Array;
      durationMs: number;
      /** When the user stopped speaking. */
      speechEndedAt: number;
      /** When the VAD decided the utterance was over. */
      decidedAt: number;
    }
  | { type: 'TEXT'; text: string; receivedAt: number }
  | { type: 'TRANSCRIBED'; text: string }
  | { type: 'AUDIO_STARTED' }
  | { type: 'SPEAK_DONE' }
  | { type: 'REPLY_DONE' }
  | { type: 'REPLY_FAILED'; error: string }
  /** The turn's answer asked for call control and its words have played. */
  | { type: 'ACT'; action: CallAction }
  | { type: 'HANGUP' }
  | { type: 'SHUTDOWN' }
  | { type: 'FAIL'; error: string };

export type SessionEmitted =
  | { type: 'turn_started'; turn: number; input: TurnInput }
  | { type: 'interrupted'; turn: number; transcript: string | null }
  | { type: 'ended'; reason: EndReason; error: string | null };

export interface SpeakInput {
  text: string;
}

/** What `act` resolves with: the reason the session ends with (it throws when the action failed). */
export type ActOutput = Extract<EndReason, 'agent_hangup' | 'transferred'>;

export interface ReplyInput {
  turn: number;
  input: TurnInput;
}

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionMachineInput,
    emitted: {} as SessionEmitted,
  },
  actors: {
    listen: fromEventObservable<SessionEvent, void>(() => EMPTY),
    speak: fromEventObservable<SessionEvent, SpeakInput>(() => EMPTY),
    reply: fromEventObservable<SessionEvent, ReplyInput>(() => EMPTY),
    act: fromPromise<ActOutput, CallAction>(({ input }) =>
      Promise.resolve(input.type === 'end_call' ? 'agent_hangup' : 'transferred'),
    ),
  },
  delays: {
    idleTimeout: ({ context }) => context.idleTimeoutMs,
    maxDuration: ({ context }) => context.maxDurationMs,
    interruptionMinSpeech: ({ context }) => context.interruptionMinSpeechMs,
  },
  guards: {
    hasQueued: ({ context }) => context.queued !== null,
    hasGreeting: ({ context }) => context.greeting !== null && context.greeting.trim() !== '',
    interruptible: ({ context }) => context.interruptionsEnabled,
  },
  actions: {
    startTurn: assign(({ context, event }) => {
      const pending: TurnInput | null =
        event.type === 'SPEECH_END' || event.type === 'TEXT' ? turnInput(event) : context.pending;
      return { turn: context.turn + 1, pending, transcript: pending?.kind === 'text' ? pending.text : null };
    }),
    startQueuedTurn: assign(({ context }) => ({
      turn: context.turn + 1,
      pending: context.queued,
      queued: null,
      transcript: context.queued?.kind === 'text' ? context.queued.text : null,
    })),
    queueUtterance: assign(({ event }) => (event.type === 'SPEECH_END' ? { queued: turnInput(event) } : {})),
    failed: assign(({ event }) => ({
      endReason: 'error' as const,
      error: 'error' in event ? describe(event.error) : 'unknown error',
    })),
    announceTurn: emit(({ context }) => ({
      type: 'turn_started' as const,
      turn: context.turn,
      input: context.pending!,
    })),
    announceInterrupted: emit(({ context }) => ({
      type: 'interrupted' as const,
      turn: context.turn,
      transcript: context.transcript,
    })),
    clearTurn: assign({ pending: null, transcript: null }),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    ...input,
    turn: 0,
    pending: null,
    queued: null,
    transcript: null,
    endReason: null,
    error: null,
    action: null,
  }),
  initial: 'active',
  states: {
    active: {
      invoke: { src: 'listen', onError: { target: 'ended', actions: 'failed' } },
      after: {
        maxDuration: { target: 'ended', actions: assign({ endReason: 'max_duration' }) },
      },
      on: {
        HANGUP: { target: 'ended', actions: assign({ endReason: 'client_hangup' }) },
        SHUTDOWN: { target: 'ended', actions: assign({ endReason: 'shutdown' }) },
        FAIL: {
          target: 'ended',
          actions: assign(({ event }) => ({ endReason: 'error' as const, error: event.error })),
        },
      },
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'hasGreeting', target: 'greeting' }, { target: 'listening' }],
        },
        greeting: {
          invoke: {
            src: 'speak',
            input: ({ context }) => ({ text: context.greeting ?? '' }),
            onError: { target: '#session.ended', actions: 'failed' },
          },
          on: {
            SPEAK_DONE: 'listening',
            SPEECH_START: { guard: 'interruptible', target: 'interrupted' },
          },
        },
        listening: {
          after: {
            idleTimeout: { target: '#session.ended', actions: assign({ endReason: 'idle_timeout' }) },
          },
          on: {
            SPEECH_START: 'userSpeaking',
            // Speech that began while the agent spoke (interruptions off) and outlasted it.
            SPEECH_END: { target: 'turn', actions: ['startTurn', 'announceTurn'] },
            TEXT: { target: 'turn', actions: ['startTurn', 'announceTurn'] },
          },
        },
        userSpeaking: {
          on: {
            SPEECH_END: { target: 'turn', actions: ['startTurn', 'announceTurn'] },
            TEXT: { target: 'turn', actions: ['startTurn', 'announceTurn'] },
          },
        },
        turn: {
          invoke: {
            src: 'reply',
            input: ({ context }) => ({ turn: context.turn, input: context.pending! }),
            onError: { target: '#session.ended', actions: 'failed' },
          },
          on: {
            TRANSCRIBED: { actions: assign(({ event }) => ({ transcript: event.text })) },
            REPLY_DONE: [
              { guard: 'hasQueued', target: 'turn', reenter: true, actions: ['startQueuedTurn', 'announceTurn'] },
              { target: 'listening', actions: 'clearTurn' },
            ],
            REPLY_FAILED: [
              { guard: 'hasQueued', target: 'turn', reenter: true, actions: ['startQueuedTurn', 'announceTurn'] },
              { target: 'listening', actions: 'clearTurn' },
            ],
            // The answer asked to hang up or transfer, and its closing words have played.
            ACT: { target: 'acting', actions: assign(({ event }) => ({ action: event.action })) },
            // With interruptions off, speech during the answer is kept and answered next.
            SPEECH_END: { actions: 'queueUtterance' },
            TEXT: {
              guard: 'interruptible',
              target: 'turn',
              reenter: true,
              actions: ['announceInterrupted', 'startTurn', 'announceTurn'],
            },
          },
          initial: 'thinking',
          states: {
            thinking: {
              on: {
                AUDIO_STARTED: 'speaking',
                SPEECH_START: { guard: 'interruptible', target: '#session.active.interrupted' },
              },
            },
            speaking: {
              initial: 'playing',
              states: {
                playing: {
                  on: { SPEECH_START: { guard: 'interruptible', target: 'overlapped' } },
                },
                /** The user talks over the agent; it counts as barge-in once it lasts long enough. */
                overlapped: {
                  after: { interruptionMinSpeech: '#session.active.interrupted' },
                  on: { SPEECH_END: 'playing' },
                },
              },
            },
          },
        },
        /**
         * Carrying out call control: no barge-in (speech and text are ignored), so a transfer under
         * way is never cut. Done: the session ends with the action's reason. Failed (recorded by the
         * actor): the conversation goes on.
         */
        acting: {
          invoke: {
            src: 'act',
            input: ({ context }) => context.action!,
            onDone: { target: '#session.ended', actions: assign(({ event }) => ({ endReason: event.output })) },
            onError: { target: 'listening', actions: [assign({ action: null }), 'clearTurn'] },
          },
        },
        interrupted: {
          entry: 'announceInterrupted',
          always: { target: 'userSpeaking', actions: 'clearTurn' },
        },
      },
    },
    ended: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'ended' as const,
        reason: context.endReason ?? 'error',
        error: context.error,
      })),
    },
  },
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

function turnInput(event: Extract<SessionEvent, { type: 'SPEECH_END' } | { type: 'TEXT' }>): TurnInput {
  return event.type === 'TEXT'
    ? { kind: 'text', text: event.text, receivedAt: event.receivedAt }
    : {
        kind: 'audio',
        audio: event.audio,
        durationMs: event.durationMs,
        speechEndedAt: event.speechEndedAt,
        decidedAt: event.decidedAt,
      };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
