import { describe, expect, it } from 'vitest';
import { Observable, throwError } from 'rxjs';
import { createActor, fromEventObservable, SimulatedClock } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  sessionMachine,
  type ReplyInput,
  type SessionEmitted,
  type SessionEvent,
  type SessionMachineInput,
  type SpeakInput,
} from './session.machine.js';

const baseInput: SessionMachineInput = {
  greeting: null,
  interruptionsEnabled: true,
  interruptionMinSpeechMs: 300,
  idleTimeoutMs: 10_000,
  maxDurationMs: 60_000,
};

/** Starts the machine with recording stand-ins for the actors src/ provides. */
function start(input: Partial<SessionMachineInput> = {}) {
  const clock = new SimulatedClock();
  const log = {
    speak: [] as SpeakInput[],
    reply: [] as ReplyInput[],
    stopped: [] as string[],
    emitted: [] as SessionEmitted[],
  };
  // Stand-ins for the graphs: they never emit, and record when the machine unsubscribes them.
  const machine = sessionMachine.provide({
    actors: {
      speak: fromEventObservable<SessionEvent, SpeakInput>(({ input }) => {
        log.speak.push(input);
        return new Observable<SessionEvent>(() => () => log.stopped.push('speak'));
      }),
      reply: fromEventObservable<SessionEvent, ReplyInput>(({ input }) => {
        log.reply.push(input);
        return new Observable<SessionEvent>(() => () => log.stopped.push(`reply:${input.turn}`));
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { ...baseInput, ...input } });
  for (const type of ['turn_started', 'interrupted', 'ended'] as const) actor.on(type, (e) => log.emitted.push(e));
  actor.start();
  const state = () => JSON.stringify(actor.getSnapshot().value);
  return { actor, clock, log, state };
}

const utterance = {
  type: 'SPEECH_END' as const,
  audio: new Int16Array(160),
  durationMs: 10,
  speechEndedAt: 1_000,
  decidedAt: 1_550,
};

describe('session machine', () => {
  it('speaks the greeting first, then listens', () => {
    const { actor, log, state } = start({ greeting: 'Hi, how can I help?' });
    expect(state()).toBe('{"active":"greeting"}');
    expect(log.speak).toEqual([{ text: 'Hi, how can I help?' }]);
    actor.send({ type: 'SPEAK_DONE' });
    expect(state()).toBe('{"active":"listening"}');
  });

  it('listens at once without a greeting', () => {
    const { state, log } = start();
    expect(state()).toBe('{"active":"listening"}');
    expect(log.speak).toEqual([]);
  });

  it('runs a turn: speech → thinking → speaking → listening', () => {
    const { actor, log, state } = start();
    actor.send({ type: 'SPEECH_START' });
    expect(state()).toBe('{"active":"userSpeaking"}');
    actor.send(utterance);
    expect(state()).toBe('{"active":{"turn":"thinking"}}');
    expect(log.reply).toHaveLength(1);
    expect(log.reply[0]!.turn).toBe(1);
    expect(log.reply[0]!.input.kind).toBe('audio');
    actor.send({ type: 'TRANSCRIBED', text: 'book a table' });
    expect(actor.getSnapshot().context.transcript).toBe('book a table');
    actor.send({ type: 'AUDIO_STARTED' });
    expect(state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
    actor.send({ type: 'REPLY_DONE' });
    expect(state()).toBe('{"active":"listening"}');
    expect(log.stopped).toEqual(['reply:1']);
    expect(log.emitted).toEqual([{ type: 'turn_started', turn: 1, input: log.reply[0]!.input }]);
  });

  it('a typed message starts a turn too', () => {
    const { actor, log } = start();
    actor.send({ type: 'TEXT', text: 'hello', receivedAt: 5 });
    expect(log.reply[0]!.input).toEqual({ kind: 'text', text: 'hello', receivedAt: 5 });
    expect(actor.getSnapshot().context.transcript).toBe('hello');
  });

  it('ends after the idle timeout, and the timer restarts after each turn', () => {
    const { actor, clock, log, state } = start({ idleTimeoutMs: 5_000 });
    clock.increment(4_000);
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'REPLY_DONE' });
    clock.increment(4_000);
    expect(state()).toBe('{"active":"listening"}');
    clock.increment(1_000);
    expect(state()).toBe('"ended"');
    expect(log.emitted.at(-1)).toEqual({ type: 'ended', reason: 'idle_timeout', error: null });
  });

  it('does not time out while the user speaks or a turn runs', () => {
    const { actor, clock, state } = start({ idleTimeoutMs: 5_000 });
    actor.send({ type: 'SPEECH_START' });
    clock.increment(20_000);
    expect(state()).toBe('{"active":"userSpeaking"}');
    actor.send(utterance);
    clock.increment(20_000);
    expect(state()).toBe('{"active":{"turn":"thinking"}}');
  });

  it('ends at the maximum duration even mid-turn, stopping the reply', () => {
    const { actor, clock, log, state } = start({ maxDurationMs: 30_000, idleTimeoutMs: 100_000 });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    clock.increment(30_000);
    expect(state()).toBe('"ended"');
    expect(log.stopped).toContain('reply:1');
    expect(log.emitted.at(-1)).toMatchObject({ type: 'ended', reason: 'max_duration' });
  });

  it('barge-in: speech overlapping the agent for the minimum stops the reply and listens to the user', () => {
    const { actor, clock, log, state } = start();
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'TRANSCRIBED', text: 'first question' });
    actor.send({ type: 'AUDIO_STARTED' });
    actor.send({ type: 'SPEECH_START' });
    expect(state()).toBe('{"active":{"turn":{"speaking":"overlapped"}}}');
    clock.increment(299);
    expect(log.stopped).toEqual([]);
    clock.increment(1);
    expect(state()).toBe('{"active":"userSpeaking"}');
    expect(log.stopped).toEqual(['reply:1']);
    expect(log.emitted).toContainEqual({ type: 'interrupted', turn: 1, transcript: 'first question' });
    actor.send(utterance);
    expect(log.reply.map((r) => r.turn)).toEqual([1, 2]);
  });

  it('a short overlap (a cough) does not interrupt', () => {
    const { actor, clock, log, state } = start();
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'AUDIO_STARTED' });
    actor.send({ type: 'SPEECH_START' });
    clock.increment(100);
    actor.send(utterance);
    clock.increment(1_000);
    expect(state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
    expect(log.stopped).toEqual([]);
  });

  it('speech while the agent is still thinking aborts the pending answer', () => {
    const { actor, log, state } = start();
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'SPEECH_START' });
    expect(state()).toBe('{"active":"userSpeaking"}');
    expect(log.stopped).toEqual(['reply:1']);
    expect(log.emitted.map((e) => e.type)).toEqual(['turn_started', 'interrupted']);
  });

  it('with interruptions disabled the agent finishes speaking', () => {
    const { actor, clock, log, state } = start({ interruptionsEnabled: false });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'SPEECH_START' });
    actor.send({ type: 'AUDIO_STARTED' });
    actor.send({ type: 'SPEECH_START' });
    clock.increment(5_000);
    expect(state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
    expect(log.stopped).toEqual([]);
    actor.send({ type: 'REPLY_DONE' });
    actor.send(utterance); // speech that outlasted the reply still becomes a turn
    expect(log.reply.map((r) => r.turn)).toEqual([1, 2]);
  });

  it('with interruptions disabled an utterance spoken over the answer is answered next', () => {
    const { actor, log, state } = start({ interruptionsEnabled: false });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'AUDIO_STARTED' });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    expect(log.reply.map((r) => r.turn)).toEqual([1]);
    actor.send({ type: 'REPLY_DONE' });
    expect(state()).toBe('{"active":{"turn":"thinking"}}');
    expect(log.reply.map((r) => r.turn)).toEqual([1, 2]);
    expect(actor.getSnapshot().context.queued).toBeNull();
  });

  it('a failed reply means silence for that turn and listening again', () => {
    const { actor, state } = start();
    actor.send({ type: 'TEXT', text: 'x', receivedAt: 0 });
    actor.send({ type: 'REPLY_FAILED', error: 'webhook answered HTTP 500' });
    expect(state()).toBe('{"active":"listening"}');
  });

  it('hang-up, shutdown and failure end the session with their reason', () => {
    for (const [event, reason] of [
      [{ type: 'HANGUP' }, 'client_hangup'],
      [{ type: 'SHUTDOWN' }, 'shutdown'],
      [{ type: 'FAIL', error: 'boom' }, 'error'],
    ] as const) {
      const { actor, log } = start({ greeting: 'hello' });
      actor.send(event);
      expect(actor.getSnapshot().status).toBe('done');
      expect(log.emitted.at(-1)).toMatchObject({ type: 'ended', reason });
      expect(log.stopped).toEqual(['speak']);
    }
  });

  it('speech over the greeting interrupts it: the speak graph is unsubscribed and the client told (turn 0)', () => {
    const { actor, log, state } = start({ greeting: 'Welcome!' });
    actor.send({ type: 'SPEECH_START' });
    expect(state()).toBe('{"active":"userSpeaking"}');
    expect(log.stopped).toEqual(['speak']);
    expect(log.emitted).toEqual([{ type: 'interrupted', turn: 0, transcript: null }]);
  });

  it('an error inside a graph ends the session with reason error', () => {
    const machine = sessionMachine.provide({
      actors: {
        reply: fromEventObservable<SessionEvent, ReplyInput>(() => throwError(() => new TypeError('bug in a stage'))),
      },
    });
    const actor = createActor(machine, { input: baseInput });
    const ended: SessionEmitted[] = [];
    actor.on('ended', (e) => ended.push(e));
    actor.start();
    actor.send({ type: 'TEXT', text: 'hi', receivedAt: 0 });
    expect(actor.getSnapshot().status).toBe('done');
    expect(ended).toEqual([{ type: 'ended', reason: 'error', error: 'bug in a stage' }]);
  });

  it('every state is reachable (xstate/graph shortest paths)', () => {
    const machine = sessionMachine.provide({
      actors: {
        speak: fromEventObservable<SessionEvent, SpeakInput>(() => new Observable<SessionEvent>()),
        reply: fromEventObservable<SessionEvent, ReplyInput>(() => new Observable<SessionEvent>()),
      },
    });
    const paths = getShortestPaths(machine, {
      input: { ...baseInput, greeting: 'hi' },
      events: [
        { type: 'SPEECH_START' },
        utterance,
        { type: 'TEXT', text: 't', receivedAt: 0 },
        { type: 'TRANSCRIBED', text: 't' },
        { type: 'AUDIO_STARTED' },
        { type: 'SPEAK_DONE' },
        { type: 'REPLY_DONE' },
        { type: 'REPLY_FAILED', error: 'e' },
        { type: 'HANGUP' },
      ],
      serializeState: (s) => JSON.stringify(s.value) + (s.context.pending === null ? '' : '+turn'),
    });
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    for (const expected of [
      '{"active":"greeting"}',
      '{"active":"listening"}',
      '{"active":"userSpeaking"}',
      '{"active":{"turn":"thinking"}}',
      '{"active":{"turn":{"speaking":"playing"}}}',
      '{"active":{"turn":{"speaking":"overlapped"}}}',
      '"ended"',
    ]) {
      expect(reached, expected).toContain(expected);
    }
  });
});
