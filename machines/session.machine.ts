import { EMPTY, of } from 'rxjs';
import { assign, emit, fromEventObservable, fromPromise, setup, type ActorRefFrom } from 'xstate';
import * as update from './session.context.js';
import { talkedOver } from './talked-over.js';

/**
 * The state of one voice conversation. Pure: it imports nothing from src/ (its word rules are in
 * ./turn-words). Audio never passes through it; it invokes RxJS graphs (src/pipeline,
 * provided by src/sessions with `machine.provide({ actors })`) as `fromEventObservable` actors and
 * reacts to the events they send:
 * - `listen` (the whole session): the microphone graph and the client's messages; sends
 *   SPEECH_START, SPEECH_END, TEXT and HANGUP.
 * - `speak`: says a fixed text (the greeting); sends SPEAK_DONE when playback has finished.
 * - `reply`: one user turn: transcribe (for audio), answer, speak; sends TRANSCRIBED, AUDIO_STARTED
 *   and REPLY_DONE / REPLY_FAILED. A turn begins *tentative* in smart endpointing: the reply is
 *   started at the short silence but holds back its audio, its records and (passthrough) the
 *   webhook until the turn is confirmed (`turn_started`); if the user goes on, it is dropped.
 * - `endOfTurn`: the end-of-turn model's verdict on a tentative turn (END_OF_TURN), if one is loaded.
 * - `overhear`: transcribes speech heard over the agent (OVERHEARD), to tell a barge-in from "uh-huh".
 * - `overhearing`: while that speech goes on, the recogniser's hypothesis so far (OVERHEARING), or
 *   without one that it goes on long (LONG_SPEECH), so real words interrupt before the user stops.
 * - `silenceHeard`: SILENCE_HEARD once the VAD has scored the audio up to the end of a wait.
 * Leaving the state that invoked an actor unsubscribes its graph; each stage's teardown aborts its
 * HTTP call or flushes its audio. That is barge-in, and the decision to do it lives here alone.
 * An error in a graph (a bug, not a provider failure) ends the session with reason `error`.
 * Side effects on the outside world (telling the client, storing records) hang off emitted events:
 * `turn_started`, `playback_paused`, `playback_resumed`, `interrupted`, `ended`.
 */
import type {
  ActOutput,
  AudioCheckInput,
  CallAction,
  ReplyInput,
  SessionContext,
  SessionEmitted,
  SessionEvent,
  SessionMachineInput,
  SpeakInput,
} from './session.types.js';

export type * from './session.types.js';

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
    endOfTurn: fromEventObservable<SessionEvent, AudioCheckInput>(() => EMPTY),
    overhear: fromEventObservable<SessionEvent, AudioCheckInput>(() => EMPTY),
    overhearing: fromEventObservable<SessionEvent, void>(() => EMPTY),
    silenceHeard: fromEventObservable<SessionEvent, void>(() => of<SessionEvent>({ type: 'SILENCE_HEARD' })),
  },
  delays: {
    idleTimeout: ({ context }) => context.idleTimeoutMs,
    maxDuration: ({ context }) => context.maxDurationMs,
    interruptionMinSpeech: ({ context }) => context.interruptionMinSpeechMs,
    endpointingMax: ({ context }) => context.turnTaking.waits.maxMs,
    endpointingWait: ({ context }) => context.waitMs,
  },
  guards: {
    hasQueued: ({ context }) => context.queued !== null,
    hasGreeting: ({ context }) => context.greeting !== null && context.greeting.trim() !== '',
    interruptible: ({ context }) => context.interruptionsEnabled,
    confirmed: ({ context }) => context.confirmed,
    transcribed: ({ context }) => context.transcript !== null,
    endOfTurnLikely: ({ context, event }) => update.endOfTurnLikely(context, event),
    saysStop: ({ context, event }) => update.saysStop(context, event),
    /** Speech over the agent that lasted long enough and says more than an acknowledgement. */
    realInterruption: ({ context, event }) => update.realInterruption(context, event),
    hasOverheard: ({ context }) => context.overheard !== null,
    /** Speech over the agent, still going on, that lasted long enough and says enough words so far. */
    realInterruptionSoFar: ({ context, event }) => update.realInterruptionSoFar(context, event),
    longEnough: ({ context }) => context.overlapLongEnough,
  },
  actions: {
    startTurn: assign(({ context, event }) => update.startTurn(context, event)),
    startQueuedTurn: assign(({ context }) => update.startQueuedTurn(context)),
    startOverheardTurn: assign(({ context }) => update.startOverheardTurn(context)),
    holdUtterance: assign(({ context }) => update.holdUtterance(context)),
    dropTurn: assign(({ context }) => update.dropTurn(context)),
    heard: assign(({ context, event }) => update.heard(context, event)),
    confirm: assign({ confirmed: true }),
    queueUtterance: assign(({ context, event }) => update.queueUtterance(context, event)),
    overhear: assign(({ context, event }) => update.overhear(context, event)),
    keepTranscript: assign(({ context, event }) => update.keepTranscript(context, event)),
    failed: assign(({ event }) => update.failed(event)),
    announceTurn: emit(({ context }) => ({
      type: 'turn_started' as const,
      turn: context.turn,
      input: context.pending!,
    })),
    pausePlayback: emit(({ context }) => ({ type: 'playback_paused' as const, turn: context.turn })),
    resumePlayback: emit(({ context }) => ({ type: 'playback_resumed' as const, turn: context.turn })),
    announceInterrupted: emit(({ context }) => ({
      type: 'interrupted' as const,
      turn: context.turn,
      transcript: context.transcript,
    })),
    clearTurn: assign({ pending: null, transcript: null }),
    startOverlap: assign({ overheard: null, overlapLongEnough: false }),
    overlapLongEnough: assign({ overlapLongEnough: true }),
    forgetOverheard: assign({ overheard: null }),
    holdOverheard: assign(({ context }) => update.holdOverheard(context)),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => update.initialContext(input),
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
          on: { SPEAK_DONE: 'listening' },
          // Talked over like an answer: paused at the onset, interrupted (turn 0) only by real speech.
          ...talkedOver('#session.active.greeting.playing'),
        },
        listening: {
          after: {
            idleTimeout: { target: '#session.ended', actions: assign({ endReason: 'idle_timeout' }) },
          },
          on: {
            SPEECH_START: 'userSpeaking',
            // Speech that began while the agent spoke (interruptions off) and outlasted it.
            SPEECH_END: { target: 'turn', actions: 'startTurn' },
            TEXT: { target: 'turn', actions: 'startTurn' },
          },
        },
        userSpeaking: {
          on: {
            SPEECH_END: { target: 'turn', actions: 'startTurn' },
            TEXT: { target: 'turn', actions: 'startTurn' },
          },
        },
        turn: {
          invoke: {
            src: 'reply',
            input: ({ context }) => ({ turn: context.turn, input: context.pending!, confirmed: context.confirmed }),
            onError: { target: '#session.ended', actions: 'failed' },
          },
          on: {
            TRANSCRIBED: { actions: assign(({ event }) => ({ transcript: event.text })) },
            REPLY_DONE: [
              { guard: 'hasQueued', target: 'turn', reenter: true, actions: 'startQueuedTurn' },
              { target: 'listening', actions: 'clearTurn' },
            ],
            REPLY_FAILED: [
              { guard: 'hasQueued', target: 'turn', reenter: true, actions: 'startQueuedTurn' },
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
              actions: ['announceInterrupted', 'startTurn'],
            },
          },
          initial: 'deciding',
          states: {
            deciding: { always: [{ guard: 'confirmed', target: 'thinking' }, { target: 'tentative' }] },
            /**
             * Smart endpointing: the user paused for `preemptive_silence_ms`; the reply has started
             * (transcription, and the answer in enhanced mode) but nothing is spoken or stored.
             */
            tentative: {
              invoke: {
                src: 'endOfTurn',
                input: ({ context }) => ({
                  audio: context.pending?.kind === 'audio' ? context.pending.audio : new Int16Array(0),
                  startMs: context.pending?.kind === 'audio' ? context.pending.startMs : 0,
                }),
              },
              on: {
                SPEECH_START: { target: '#session.active.userSpeaking', actions: 'holdUtterance' },
                // Nothing intelligible (or no transcript at all): not a turn.
                REPLY_DONE: { target: '#session.active.listening', actions: 'dropTurn' },
                // Transcription failed: reported as this turn's failure (turn_failed), then listen.
                REPLY_FAILED: { target: '#session.active.listening', actions: 'clearTurn' },
                SPEECH_END: {},
                TEXT: { target: '#session.active.turn', reenter: true, actions: ['dropTurn', 'startTurn'] },
              },
              initial: 'hearing',
              states: {
                /** No transcript yet: wait for it, at most `endpointing_max_ms`. */
                hearing: {
                  after: { endpointingMax: '#session.active.turn.thinking' },
                  on: {
                    TRANSCRIBED: { target: 'waiting', actions: 'heard' },
                    END_OF_TURN: { guard: 'endOfTurnLikely', target: '#session.active.turn.thinking' },
                    SPEECH_ONSET: 'resuming',
                  },
                },
                /** The transcript says how much longer to wait. */
                waiting: {
                  after: { endpointingWait: 'settling' },
                  on: {
                    END_OF_TURN: { guard: 'endOfTurnLikely', target: '#session.active.turn.thinking' },
                    SPEECH_ONSET: 'resuming',
                  },
                },
                /** The wait ran out; confirmed once the VAD (~40 ms behind) has scored it all. */
                settling: {
                  invoke: { src: 'silenceHeard' },
                  on: {
                    SILENCE_HEARD: '#session.active.turn.thinking',
                    END_OF_TURN: { guard: 'endOfTurnLikely', target: '#session.active.turn.thinking' },
                    SPEECH_ONSET: 'resuming',
                  },
                },
                /**
                 * Maybe speech again (a window over the threshold): no timer may confirm the turn
                 * until the VAD knows. Confirmed speech holds the utterance (above); a dismissed
                 * onset (a click) goes back to waiting, its wait started afresh.
                 */
                resuming: {
                  on: {
                    TRANSCRIBED: { actions: 'heard' },
                    SPEECH_DISMISSED: [{ guard: 'transcribed', target: 'waiting' }, { target: 'hearing' }],
                  },
                },
              },
            },
            thinking: {
              entry: ['confirm', 'announceTurn'],
              on: {
                AUDIO_STARTED: 'speaking',
                SPEECH_START: { guard: 'interruptible', target: '#session.active.interrupted' },
              },
            },
            /** The answer plays; the user may talk over it (machines/talked-over.ts). */
            speaking: talkedOver('#session.active.turn.speaking.playing'),
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
          always: [
            { guard: 'hasOverheard', target: 'turn', actions: 'startOverheardTurn' },
            { target: 'userSpeaking', actions: 'clearTurn' },
          ],
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
