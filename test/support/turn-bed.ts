import { asyncScheduler, BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import { createActor, fromEventObservable } from 'xstate';
import {
  sessionMachine,
  type AudioCheckInput,
  type ReplyInput,
  type SessionEvent,
  type SessionMachineInput,
} from '../../machines/session.machine.js';
import { createLogger } from '../../src/logging/logger.js';
import { playout } from '../../src/pipeline/reply/playout.js';
import type { ReplyStages } from '../../src/pipeline/reply/reply.js';
import type { StoredAgent } from '../../src/schemas/agent.js';
import type { Message } from '../../src/schemas/conversation.js';
import type { Session } from '../../src/schemas/session.js';
import type { ServerEvent } from '../../src/sessions/transport/messages.js';
import { SessionWrites } from '../../src/session-writes/session-writes.js';
import { overheardEvents } from '../../src/sessions/voice-checks.js';
import { turnEvents, type TurnGraph } from '../../src/sessions/voice-turn.js';
import type { AgentTurn, PlayedTurn, TurnRecorder } from '../../src/session-writes/turn-recorder.js';

/**
 * The session machine deciding turns over a real reply graph, all in virtual time: the machine's
 * timers run on the TestScheduler, `cold()` marbles stand in for the user, the answer and TTS.
 * What the client is sent and what is recorded are what tests check, not the graph's insides.
 */
const input: SessionMachineInput = {
  greeting: null,
  interruptionsEnabled: true,
  interruptionMinSpeechMs: 300,
  idleTimeoutMs: 60_000,
  maxDurationMs: 600_000,
  turnTaking: {
    smart: false,
    waits: { punctuationMs: 300, numberMs: 1_200, maxMs: 1_500, defaultMs: 1_000 },
    smartTurnThreshold: 0.5,
    backchannelWords: ['okay', 'uh-huh', 'mm-hmm', 'yeah', 'right'],
    stopWords: ['stop', 'wait'],
  },
};
const agent = { id: 'agt_1', mode: 'passthrough', preemptive_silence_ms: 200 } as StoredAgent;
const session = { id: 'ses_1', conversation_id: 'cnv_1' } as Session;

export type Cold = TestScheduler['createColdObservable'];
export type Sent = [number, ServerEvent | 'audio'];

/**
 * Wires the machine to the graphs the way VoiceSession does, on the TestScheduler's clock. The
 * agent says no fallback line unless `fallbackLine` is given.
 */
export async function converse(
  user: (cold: Cold) => Observable<SessionEvent>,
  stages: (cold: Cold) => ReplyStages,
  options: { smart?: boolean; mode?: StoredAgent['mode']; fallbackLine?: string } = {},
): Promise<{ sent: Sent[]; recorded: [string, unknown][] }> {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const sent: Sent[] = [];
  const recorded: [string, unknown][] = [];
  const recorder: TurnRecorder = {
    user: async (_s, turn) => void recorded.push(['user', turn.text]),
    answered: async (_a, _s, turn: AgentTurn) => {
      recorded.push(['answered', { status: turn.status, text: turn.text, source: turn.source }]);
      return { id: `msg_${turn.turn}` } as Message;
    },
    played: async (_a, _s, id, played: PlayedTurn) =>
      void recorded.push(['played', { id, interrupted: played.interrupted, spoken: played.spokenText }]),
    toolCalled: async () => ({ id: 'msg_tool' }) as Message,
    ended: async () => null,
  };
  ts.run(({ cold, flush }) => {
    const c = cold as unknown as Cold;
    const confirmations = new BehaviorSubject(0);
    const paused$ = new BehaviorSubject(false);
    const send = (e: ServerEvent) => sent.push([ts.now(), e]);
    const graph: TurnGraph = {
      transport: { send, outputSampleRate: 1000 },
      recorder,
      records: new SessionWrites({ logger: createLogger('silent') }),
      agent: { ...agent, mode: options.mode ?? agent.mode, fallback_line: options.fallbackLine ?? '' },
      session,
      now: () => ts.now(),
      stages: stages(c),
      speak: playout(() => sent.push([ts.now(), 'audio']), { sampleRate: 1000, frameMs: 20, leadMs: 60, paused$ }),
      confirmations,
    };
    const machine = sessionMachine.provide({
      actors: {
        listen: fromEventObservable<SessionEvent, void>(() => user(c)),
        reply: fromEventObservable<SessionEvent, ReplyInput>(({ input: i }) =>
          turnEvents(graph, i.turn, i.input, i.confirmed),
        ),
        overhear: fromEventObservable<SessionEvent, AudioCheckInput>(({ input: i }) =>
          overheardEvents(graph.stages, i.audio),
        ),
      },
    });
    const clock = {
      setTimeout: (fn: () => void, ms: number) => asyncScheduler.schedule(fn, ms),
      clearTimeout: (s: Subscription) => s.unsubscribe(),
    };
    const turnTaking = { ...input.turnTaking, smart: options.smart ?? false };
    const actor = createActor(machine, { input: { ...input, turnTaking }, clock });
    actor.on('turn_started', ({ turn }) => {
      paused$.next(false);
      confirmations.next(turn);
    });
    actor.on('playback_paused', ({ turn }) => {
      paused$.next(true);
      send({ type: 'playback_paused', turn });
    });
    actor.on('playback_resumed', ({ turn }) => {
      send({ type: 'playback_resumed', turn });
      paused$.next(false);
    });
    actor.on('interrupted', ({ turn }) => send({ type: 'interrupted', turn }));
    actor.start();
    flush();
    actor.stop();
  });
  await new Promise((r) => setTimeout(r, 10)); // the record writes (real promises)
  return { sent, recorded };
}

export const text = (t: string): SessionEvent => ({ type: 'TEXT', text: t, receivedAt: 0 });
export const speech = (): SessionEvent => ({ type: 'SPEECH_START' });
export const speechEnd = (): Extract<SessionEvent, { type: 'SPEECH_END' }> => ({
  type: 'SPEECH_END',
  audio: new Int16Array(160),
  startMs: 0,
  durationMs: 10,
  speechEndedAt: 0,
  decidedAt: 0,
});
export const types = (sent: Sent[]) =>
  sent.filter(([, e]) => e !== 'audio').map(([t, e]) => [t, (e as ServerEvent).type]);
export const audioBetween = (sent: Sent[], from: number, to: number) =>
  sent.filter(([t, e]) => e === 'audio' && t > from && t < to).length;
