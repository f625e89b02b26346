import { describe, expect, it } from 'vitest';
import { Observable, throwError } from 'rxjs';
import { createActor, fromEventObservable, SimulatedClock } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  sessionMachine,
  type AudioCheckInput,
  type ReplyInput,
  type SessionEmitted,
  type SessionEvent,
  type SessionMachineInput,
  type SpeakInput,
  type TurnTaking,
} from '../../machines/session.machine.js';

/** Today's endpointing: SPEECH_END ends the turn (`endpointing_mode: silence`). */
const silenceMode: TurnTaking = {
  smart: false,
  waits: { punctuationMs: 300, numberMs: 1_200, maxMs: 1_500, defaultMs: 1_000 },
  smartTurnThreshold: 0.5,
  backchannelWords: ['okay', 'uh-huh', 'mm-hmm', 'yeah', 'right'],
  stopWords: ['stop', 'wait'],
};

const baseInput: SessionMachineInput = {
  greeting: null,
  interruptionsEnabled: true,
  interruptionMinSpeechMs: 300,
  idleTimeoutMs: 10_000,
  maxDurationMs: 60_000,
  turnTaking: silenceMode,
};

/** Starts the machine with recording stand-ins for the actors src/ provides. */
function start(input: Partial<SessionMachineInput> = {}) {
  const clock = new SimulatedClock();
  const log = {
    speak: [] as SpeakInput[],
    reply: [] as ReplyInput[],
    checks: [] as string[],
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
      overhear: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) => {
        log.checks.push(`overhear:${input.audio.length}`);
        return new Observable<SessionEvent>();
      }),
      endOfTurn: fromEventObservable<SessionEvent, AudioCheckInput>(({ input }) => {
        log.checks.push(`endOfTurn:${input.audio.length}`);
        return new Observable<SessionEvent>();
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { ...baseInput, ...input } });
  for (const type of ['turn_started', 'playback_paused', 'playback_resumed', 'interrupted', 'ended'] as const)
    actor.on(type, (e) => log.emitted.push(e));
  actor.start();
  const state = () => JSON.stringify(actor.getSnapshot().value);
  return { actor, clock, log, state };
}

const utterance = {
  type: 'SPEECH_END' as const,
  audio: new Int16Array(160),
  startMs: 0,
  durationMs: 10,
  speechEndedAt: 1_000,
  decidedAt: 1_550,
};

describe('session machine', () => {
  it('speaks the greeting first, then listens', () => {
    const { actor, log, state } = start({ greeting: 'Hi, how can I help?' });
    expect(state()).toBe('{"active":{"greeting":"playing"}}');
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
    actor.send({ type: 'TRANSCRIBED', text: 'book a table', at: 1_600 });
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

  it('with interruptions disabled every segment spoken over the answer is kept: the next turn is all of them', () => {
    const { actor, log } = start({ interruptionsEnabled: false });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'AUDIO_STARTED' });
    const first = { ...utterance, audio: new Int16Array(1_600).fill(1), startMs: 5_000, durationMs: 100 };
    const second = { ...utterance, audio: new Int16Array(3_200).fill(2), startMs: 5_400, durationMs: 200 };
    for (const segment of [first, second]) {
      actor.send({ type: 'SPEECH_START' });
      actor.send(segment);
    }
    actor.send({ type: 'REPLY_DONE' });
    const next = log.reply[1]!.input;
    expect(next).toMatchObject({ kind: 'audio', startMs: 5_000, durationMs: 300 });
    const audio = next.kind === 'audio' ? next.audio : new Int16Array(0);
    expect([audio.length, audio[0], audio.at(-1)]).toEqual([4_800, 1, 2]);
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

  it('speech over the greeting pauses it; real words interrupt it (turn 0): the speak graph is unsubscribed', () => {
    const { actor, clock, log, state } = start({ greeting: 'Welcome!' });
    actor.send({ type: 'SPEECH_ONSET' });
    expect(state()).toBe('{"active":{"greeting":{"paused":"talking"}}}');
    expect(log.emitted).toEqual([{ type: 'playback_paused', turn: 0 }]);
    clock.increment(400);
    actor.send(utterance);
    actor.send({ type: 'OVERHEARD', text: 'Actually, I have a question.' });
    expect(log.stopped).toContain('speak');
    expect(log.emitted.map((e) => e.type)).toEqual(['playback_paused', 'interrupted', 'turn_started']);
    expect(log.emitted[1]).toMatchObject({ type: 'interrupted', turn: 0 });
    // the words already transcribed are the first turn
    expect(log.reply[0]).toMatchObject({ turn: 1, input: { transcript: 'Actually, I have a question.' } });
    expect(state()).toBe('{"active":{"turn":"thinking"}}');
  });

  it('"uh-huh" or a click over the greeting resumes it where it paused', () => {
    const { actor, log, state } = start({ greeting: 'Welcome!' });
    actor.send({ type: 'SPEECH_ONSET' });
    actor.send({ type: 'SPEECH_DISMISSED' });
    expect(state()).toBe('{"active":{"greeting":"playing"}}');
    actor.send({ type: 'SPEECH_ONSET' });
    actor.send({ type: 'SPEECH_START' });
    actor.send(utterance);
    actor.send({ type: 'OVERHEARD', text: 'Uh-huh.' });
    expect(state()).toBe('{"active":{"greeting":"playing"}}');
    expect(log.stopped).toEqual([]);
    expect(log.emitted.map((e) => e.type)).toEqual([
      'playback_paused',
      'playback_resumed',
      'playback_paused',
      'playback_resumed',
    ]);
    actor.send({ type: 'SPEAK_DONE' });
    expect(state()).toBe('{"active":"listening"}');
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

  describe('barge-in: playback pauses at once, the words decide', () => {
    /** A turn whose answer is being spoken, then the user starts talking over it. */
    /** The agent speaking its answer to a first question. */
    function answering(input: Partial<SessionMachineInput> = {}) {
      const m = start(input);
      m.actor.send({ type: 'SPEECH_START' });
      m.actor.send(utterance);
      m.actor.send({ type: 'TRANSCRIBED', text: 'first question', at: 1_600 });
      m.actor.send({ type: 'AUDIO_STARTED' });
      return m;
    }
    /** The user starts speaking over that answer. */
    function overTheAgent(input: Partial<SessionMachineInput> = {}) {
      const m = answering(input);
      m.actor.send({ type: 'SPEECH_START' });
      return m;
    }
    const kinds = (emitted: SessionEmitted[]) => emitted.map((e) => e.type);

    it('pauses playback on the speech onset, in the same step, without stopping the reply', () => {
      const { log, state } = overTheAgent();
      expect(state()).toBe('{"active":{"turn":{"speaking":{"paused":"talking"}}}}');
      expect(log.emitted.at(-1)).toEqual({ type: 'playback_paused', turn: 1 });
      expect(log.stopped).toEqual([]);
    });

    it('pauses on the first window that may be speech (SPEECH_ONSET), before it is confirmed', () => {
      const m = answering();
      m.actor.send({ type: 'SPEECH_ONSET' });
      expect(m.state()).toBe('{"active":{"turn":{"speaking":{"paused":"talking"}}}}');
      expect(kinds(m.log.emitted)).toEqual(['turn_started', 'playback_paused']);
      // confirmed speech changes nothing: playback stays paused, the words will decide
      m.actor.send({ type: 'SPEECH_START' });
      expect(kinds(m.log.emitted)).toEqual(['turn_started', 'playback_paused']);
    });

    it('an onset dismissed before min_speech (a click) resumes playback at once: no check, no interruption', () => {
      const m = answering();
      m.actor.send({ type: 'SPEECH_ONSET' });
      m.actor.send({ type: 'SPEECH_DISMISSED' });
      expect(m.state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
      expect(kinds(m.log.emitted)).toEqual(['turn_started', 'playback_paused', 'playback_resumed']);
      expect(m.log.checks).toEqual([]);
      expect(m.log.stopped).toEqual([]);
    });

    it('with interruptions off an onset pauses nothing', () => {
      const m = answering({ interruptionsEnabled: false });
      m.actor.send({ type: 'SPEECH_ONSET' });
      expect(m.state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
      expect(kinds(m.log.emitted)).toEqual(['turn_started']);
    });

    it('interrupts after interruption_min_speech_ms once the words are not an acknowledgement; they are the next turn', () => {
      const { actor, clock, log, state } = overTheAgent();
      clock.increment(300);
      expect(log.stopped).toEqual([]); // long enough, but not yet known to be words
      actor.send(utterance);
      expect(state()).toBe('{"active":{"turn":{"speaking":{"paused":"checking"}}}}');
      expect(log.checks).toEqual(['overhear:160']);
      actor.send({ type: 'OVERHEARD', text: 'Actually, make it tomorrow.' });
      expect(log.stopped).toEqual(['reply:1']);
      expect(kinds(log.emitted)).toEqual(['turn_started', 'playback_paused', 'interrupted', 'turn_started']);
      expect(log.emitted[2]).toEqual({ type: 'interrupted', turn: 1, transcript: 'first question' });
      // the words already transcribed start turn 2 (no second STT call)
      expect(log.reply[1]).toMatchObject({
        turn: 2,
        confirmed: true,
        input: { transcript: 'Actually, make it tomorrow.' },
      });
      expect(state()).toBe('{"active":{"turn":"thinking"}}');
    });

    for (const [what, text, ms] of [
      ['an acknowledgement ("uh-huh")', 'Uh-huh.', 600],
      ['"okay, yeah"', 'Okay, yeah.', 600],
      ['a noise (nothing transcribed)', '', 600],
      ['a murmur a recogniser wrote as letters', 'an m h and m', 600],
      ['words shorter than the minimum', 'no', 100],
    ] as const) {
      it(`${what} resumes playback where it paused`, () => {
        const { actor, clock, log, state } = overTheAgent();
        clock.increment(ms);
        actor.send(utterance);
        actor.send({ type: 'OVERHEARD', text });
        expect(state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
        expect(log.stopped).toEqual([]);
        expect(kinds(log.emitted)).toEqual(['turn_started', 'playback_paused', 'playback_resumed']);
      });
    }

    it('an acknowledgement is forgotten once playback resumes: later speech while thinking is a new utterance', () => {
      const { actor, log, state } = overTheAgent();
      actor.send(utterance);
      actor.send({ type: 'OVERHEARD', text: 'Uh-huh.' });
      actor.send({ type: 'REPLY_DONE' });
      actor.send({ type: 'TEXT', text: 'next', receivedAt: 0 });
      actor.send({ type: 'SPEECH_START' });
      expect(state()).toBe('{"active":"userSpeaking"}');
      expect(log.reply.map((r) => r.turn)).toEqual([1, 2]);
    });

    it('a stop word interrupts at once, however short', () => {
      const { actor, clock, log } = overTheAgent();
      clock.increment(100);
      actor.send(utterance);
      actor.send({ type: 'OVERHEARD', text: 'Stop!' });
      expect(log.stopped).toEqual(['reply:1']);
      expect(kinds(log.emitted)).toContain('interrupted');
    });

    it('speech that goes on after a pause is checked whole', () => {
      const { actor, clock, log, state } = overTheAgent();
      actor.send({ ...utterance, startMs: 0 });
      actor.send({ type: 'SPEECH_START' });
      clock.increment(300);
      expect(state()).toBe('{"active":{"turn":{"speaking":{"paused":"talking"}}}}');
      actor.send({ ...utterance, startMs: 1_000 });
      expect(log.checks).toEqual(['overhear:160', 'overhear:320']);
    });

    it('with interruptions off, speech over the agent neither pauses nor interrupts', () => {
      const { log, state } = overTheAgent({ interruptionsEnabled: false });
      expect(state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
      expect(kinds(log.emitted)).toEqual(['turn_started']);
    });
  });

  describe('smart endpointing: a tentative turn at the short silence', () => {
    const smart = { turnTaking: { ...silenceMode, smart: true } };
    const heard = (text: string, afterSpeechEndMs: number): SessionEvent => ({
      type: 'TRANSCRIBED',
      text,
      at: utterance.speechEndedAt + afterSpeechEndMs,
    });

    it('starts the reply unconfirmed, and confirms it after the wait the transcript asks for', () => {
      const { actor, clock, log, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      expect(state()).toBe('{"active":{"turn":{"tentative":"hearing"}}}');
      expect(log.reply[0]).toMatchObject({ turn: 1, confirmed: false });
      expect(log.checks).toEqual(['endOfTurn:160']);
      actor.send(heard('What time is it?', 150)); // 300 ms after punctuation, 150 already passed
      clock.increment(149);
      expect(log.emitted).toEqual([]);
      clock.increment(1);
      expect(state()).toBe('{"active":{"turn":"thinking"}}');
      expect(log.emitted).toEqual([{ type: 'turn_started', turn: 1, input: log.reply[0]!.input }]);
      expect(log.stopped).toEqual([]); // the prepared reply is the one used
    });

    for (const [text, waitMs] of [
      ['My number is 555 0123', 1_100],
      ['I want to book a table and', 1_400],
      ['I want to book a table', 900],
    ] as const) {
      it(`"${text}" waits ${waitMs + 100} ms of silence`, () => {
        const { actor, clock, state } = start(smart);
        actor.send({ type: 'SPEECH_START' });
        actor.send(utterance);
        actor.send(heard(text, 100));
        clock.increment(waitMs - 1);
        expect(state()).toBe('{"active":{"turn":{"tentative":"waiting"}}}');
        clock.increment(1);
        expect(state()).toBe('{"active":{"turn":"thinking"}}');
      });
    }

    it('an unpunctuated transcript judged a finished statement waits as a finished sentence does', () => {
      const { actor, clock, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      actor.send({
        type: 'TRANSCRIBED',
        text: 'I want to book a table',
        at: utterance.speechEndedAt + 100,
        complete: true,
      });
      clock.increment(199);
      expect(state()).toBe('{"active":{"turn":{"tentative":"waiting"}}}');
      clock.increment(1);
      expect(state()).toBe('{"active":{"turn":"thinking"}}');
    });

    it('the user going on drops the prepared reply; the next segment is joined to the utterance, same turn', () => {
      const { actor, log, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send({ ...utterance, startMs: 0 }); // 10 ms of audio: [0, 10)
      actor.send(heard('My number is 555', 100));
      actor.send({ type: 'SPEECH_START' });
      expect(state()).toBe('{"active":"userSpeaking"}');
      expect(log.stopped).toEqual(['reply:1']);
      expect(log.emitted).toEqual([]);
      actor.send({ ...utterance, startMs: 5 }); // [5, 15): 5 ms overlap with the first
      expect(log.reply.map((r) => r.turn)).toEqual([1, 1]);
      const joined = log.reply[1]!.input as { audio: Int16Array };
      expect(joined.audio.length).toBe(160 + 80);
    });

    it('a speech onset stops the wait: no confirmation until the VAD knows; speech holds the utterance', () => {
      const { actor, clock, log, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      actor.send(heard('I would like to book a table.', 100)); // 200 ms more to wait
      clock.increment(50);
      actor.send({ type: 'SPEECH_ONSET' });
      expect(state()).toBe('{"active":{"turn":{"tentative":"resuming"}}}');
      clock.increment(1_000); // far past the wait: still not confirmed
      expect(log.emitted).toEqual([]);
      actor.send({ type: 'SPEECH_START' });
      expect(state()).toBe('{"active":"userSpeaking"}');
      expect(log.stopped).toEqual(['reply:1']);
    });

    it('a dismissed onset (a click) goes back to the wait, which then confirms; before a transcript, back to hearing', () => {
      const { actor, clock, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      actor.send({ type: 'SPEECH_ONSET' });
      actor.send(heard('What time is it?', 100)); // arrives while resuming: kept
      expect(state()).toBe('{"active":{"turn":{"tentative":"resuming"}}}');
      actor.send({ type: 'SPEECH_DISMISSED' });
      expect(state()).toBe('{"active":{"turn":{"tentative":"waiting"}}}');
      clock.increment(200);
      expect(state()).toBe('{"active":{"turn":"thinking"}}');

      const other = start(smart);
      other.actor.send({ type: 'SPEECH_START' });
      other.actor.send(utterance);
      other.actor.send({ type: 'SPEECH_ONSET' });
      other.actor.send({ type: 'SPEECH_DISMISSED' });
      expect(other.state()).toBe('{"active":{"turn":{"tentative":"hearing"}}}');
    });

    it('an end-of-turn model sure of the end confirms at once; an unsure one leaves the words to decide', () => {
      const sure = start(smart);
      sure.actor.send({ type: 'SPEECH_START' });
      sure.actor.send(utterance);
      sure.actor.send({ type: 'END_OF_TURN', probability: 0.5 });
      expect(sure.state()).toBe('{"active":{"turn":"thinking"}}');

      const unsure = start(smart);
      unsure.actor.send({ type: 'SPEECH_START' });
      unsure.actor.send(utterance);
      unsure.actor.send({ type: 'END_OF_TURN', probability: 0.49 });
      unsure.actor.send(heard('I want to book a table and', 100));
      unsure.clock.increment(1_000);
      expect(unsure.state()).toBe('{"active":{"turn":{"tentative":"waiting"}}}');
    });

    it('without a transcript, the turn is confirmed after endpointing_max_ms', () => {
      const { actor, clock, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      clock.increment(1_499);
      expect(state()).toBe('{"active":{"turn":{"tentative":"hearing"}}}');
      clock.increment(1);
      expect(state()).toBe('{"active":{"turn":"thinking"}}');
    });

    it('nothing intelligible is no turn: back to listening, the turn number unused', () => {
      const { actor, log, state } = start(smart);
      actor.send({ type: 'SPEECH_START' });
      actor.send(utterance);
      actor.send({ type: 'REPLY_DONE' });
      expect(state()).toBe('{"active":"listening"}');
      actor.send({ type: 'TEXT', text: 'hello', receivedAt: 0 });
      expect(log.reply.map((r) => [r.turn, r.confirmed])).toEqual([
        [1, false],
        [1, true],
      ]);
    });
  });

  it('every state is reachable (xstate/graph shortest paths)', () => {
    const machine = sessionMachine.provide({
      actors: {
        speak: fromEventObservable<SessionEvent, SpeakInput>(() => new Observable<SessionEvent>()),
        reply: fromEventObservable<SessionEvent, ReplyInput>(() => new Observable<SessionEvent>()),
      },
    });
    const paths = getShortestPaths(machine, {
      input: { ...baseInput, greeting: 'hi', turnTaking: { ...silenceMode, smart: true } },
      events: [
        { type: 'SPEECH_ONSET' },
        { type: 'SPEECH_DISMISSED' },
        { type: 'SPEECH_START' },
        utterance,
        { type: 'TEXT', text: 't', receivedAt: 0 },
        { type: 'TRANSCRIBED', text: 't', at: 0 },
        { type: 'AUDIO_STARTED' },
        { type: 'OVERHEARD', text: 'uh-huh' },
        { type: 'END_OF_TURN', probability: 0.9 },
        { type: 'SPEAK_DONE' },
        { type: 'REPLY_DONE' },
        { type: 'REPLY_FAILED', error: 'e' },
        { type: 'HANGUP' },
      ],
      serializeState: (s) => JSON.stringify(s.value) + (s.context.pending === null ? '' : '+turn'),
    });
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    for (const expected of [
      '{"active":{"greeting":"playing"}}',
      '{"active":{"greeting":{"paused":"talking"}}}',
      '{"active":"listening"}',
      '{"active":"userSpeaking"}',
      '{"active":{"turn":"thinking"}}',
      '{"active":{"turn":{"speaking":"playing"}}}',
      '{"active":{"turn":{"speaking":{"paused":"talking"}}}}',
      '{"active":{"turn":{"speaking":{"paused":"checking"}}}}',
      '{"active":{"turn":{"tentative":"hearing"}}}',
      '{"active":{"turn":{"tentative":"waiting"}}}',
      '{"active":{"turn":{"tentative":"resuming"}}}',
      '"ended"',
    ]) {
      expect(reached, expected).toContain(expected);
    }
  });
});
