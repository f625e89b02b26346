import { describe, expect, it } from 'vitest';
import { Observable, Subject } from 'rxjs';
import { createActor, fromEventObservable, SimulatedClock } from 'xstate';
import {
  sessionMachine,
  type AudioCheckInput,
  type ReplyInput,
  type SessionEmitted,
  type SessionEvent,
  type SessionMachineInput,
  type SpeakInput,
} from '../../machines/session.machine.js';
import { twoWordsAfterMs } from '../../machines/turn-words/barge-in.js';

/**
 * Barge-in decided while the user is still talking over the agent: the `overhearing` actor sends
 * the recogniser's hypothesis so far (OVERHEARING), or without one that the speech goes on long
 * (LONG_SPEECH), and real words interrupt before the speech ends; the rest still waits for the
 * transcript at its end (session-machine.test.ts).
 */

const input: SessionMachineInput = {
  greeting: null,
  interruptionsEnabled: true,
  interruptionMinSpeechMs: 300,
  idleTimeoutMs: 10_000,
  maxDurationMs: 60_000,
  turnTaking: {
    smart: false,
    waits: { punctuationMs: 300, numberMs: 1_200, maxMs: 1_500, defaultMs: 1_000 },
    smartTurnThreshold: 0.5,
    backchannelWords: ['okay', 'uh-huh', 'mm-hmm', 'yeah', 'right', 'got it'],
    stopWords: ['stop', 'wait'],
  },
};

/** A segment of speech `ms` long starting at stream time `startMs`. */
const segment = (startMs: number, ms: number) => ({
  type: 'SPEECH_END' as const,
  audio: new Int16Array(ms * 16).fill(startMs),
  startMs,
  durationMs: ms,
  speechEndedAt: startMs + ms,
  decidedAt: startMs + ms + 64,
});

/** The machine with stand-ins: `said` is what the `overhearing` actor hears; `log` what the machine did. */
function start(settings: Partial<SessionMachineInput> = {}) {
  const clock = new SimulatedClock();
  const said = new Subject<string>();
  const log = { reply: [] as ReplyInput[], actors: [] as string[], emitted: [] as SessionEmitted[] };
  const running = (name: string) =>
    new Observable<SessionEvent>(() => {
      log.actors.push(`+${name}`);
      return () => log.actors.push(`-${name}`);
    });
  const machine = sessionMachine.provide({
    actors: {
      speak: fromEventObservable<SessionEvent, SpeakInput>(() => running('speak')),
      reply: fromEventObservable<SessionEvent, ReplyInput>(({ input: reply }) => {
        log.reply.push(reply);
        return running(`reply:${reply.turn}`);
      }),
      overhear: fromEventObservable<SessionEvent, AudioCheckInput>(() => running('overhear')),
      overhearing: fromEventObservable<SessionEvent, void>(
        () =>
          new Observable<SessionEvent>((subscriber) => {
            log.actors.push('+overhearing');
            // read as the session reads it: with the ms since the speech began (the actor started at its onset)
            const onset = clock.now();
            const heard = said.subscribe((partial) =>
              subscriber.next({ type: 'OVERHEARING', partial, speechMs: clock.now() - onset, murmured: false }),
            );
            return () => {
              heard.unsubscribe();
              log.actors.push('-overhearing');
            };
          }),
      ),
    },
  });
  const actor = createActor(machine, { clock, input: { ...input, ...settings } });
  for (const type of ['turn_started', 'playback_paused', 'playback_resumed', 'interrupted'] as const)
    actor.on(type, (e) => log.emitted.push(e));
  actor.start();
  const state = () => JSON.stringify(actor.getSnapshot().value);
  const kinds = () => log.emitted.map((e) => e.type);
  return { actor, clock, said, log, state, kinds };
}

/** The agent speaking its answer to a first question, and the user starting to talk over it. */
function talkingOver(settings: Partial<SessionMachineInput> = {}) {
  const m = start(settings);
  m.actor.send({ type: 'SPEECH_START' });
  m.actor.send(segment(0, 1_000));
  m.actor.send({ type: 'AUDIO_STARTED' });
  m.actor.send({ type: 'SPEECH_ONSET' });
  m.actor.send({ type: 'SPEECH_START' });
  return m;
}

describe('barge-in while the user is still talking', () => {
  it('a hypothesis so far with three words that say something interrupts before the speech ends', () => {
    const m = talkingOver();
    expect(m.log.actors).toEqual(['+reply:1', '+overhearing']);
    m.clock.increment(300);
    m.said.next('i want');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
    m.said.next('i want to know');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'interrupted']);
    expect(m.log.actors).toEqual(['+reply:1', '+overhearing', '-overhearing', '-reply:1']);
    // the user is still talking: the next turn waits for the end of the speech
    expect(m.state()).toBe('{"active":"userSpeaking"}');
  });

  it('the interrupting speech is the next turn when it ends, all of it from its onset', () => {
    const m = talkingOver();
    m.actor.send(segment(2_000, 400)); // a short pause: the first words are checked…
    expect(m.state()).toBe('{"active":{"turn":{"speaking":{"paused":"checking"}}}}');
    m.actor.send({ type: 'SPEECH_START' }); // …and the user goes on
    m.clock.increment(300);
    m.said.next('what time do you');
    expect(m.state()).toBe('{"active":"userSpeaking"}');
    m.actor.send(segment(2_400, 1_600));
    expect(m.log.reply[1]).toMatchObject({ turn: 2, input: { kind: 'audio', startMs: 2_000, durationMs: 2_000 } });
    expect(m.state()).toBe('{"active":{"turn":"thinking"}}');
  });

  it('with smart endpointing the interrupting speech starts a tentative turn', () => {
    const m = start({ turnTaking: { ...input.turnTaking, smart: true } });
    m.actor.send({ type: 'SPEECH_START' });
    m.actor.send(segment(0, 1_000));
    m.clock.increment(1_500);
    m.actor.send({ type: 'AUDIO_STARTED' });
    m.actor.send({ type: 'SPEECH_ONSET' });
    m.clock.increment(300);
    m.said.next('can you tell me more');
    m.actor.send(segment(3_000, 1_500));
    expect(m.log.reply[1]).toMatchObject({ turn: 2, confirmed: false, input: { startMs: 3_000 } });
    expect(m.state()).toBe('{"active":{"turn":{"tentative":"hearing"}}}');
  });

  it('words that say something before interruption_min_speech_ms wait until it has passed', () => {
    const m = talkingOver();
    m.clock.increment(200);
    m.said.next('what do you mean');
    expect(m.kinds()).not.toContain('interrupted');
    m.clock.increment(100);
    m.said.next('what do you mean by');
    expect(m.kinds()).toContain('interrupted');
  });

  it('"okay" growing into "okay so what about…" waits for three words past the acknowledgement, early on', () => {
    const m = talkingOver();
    m.clock.increment(300);
    for (const partial of ['okay', 'okay so', 'okay so what']) {
      m.said.next(partial);
      expect(m.kinds(), partial).toEqual(['turn_started', 'playback_paused']);
    }
    m.said.next('okay so what about');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'interrupted']);
  });

  it('two words that say something interrupt once the speech has gone on twoWordsAfterMs', () => {
    const m = talkingOver();
    m.clock.increment(300);
    m.said.next('what time');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
    m.clock.increment(twoWordsAfterMs - 300 - 1);
    m.said.next('what time');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
    m.clock.increment(1);
    m.said.next('what time'); // the session sends the same hypothesis again at that moment
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'interrupted']);
  });

  for (const [what, partials, final] of [
    ['an acknowledgement', ['uh', 'uh huh', 'okay yeah right'], 'Uh-huh.'],
    ['a hum a recogniser writes as letters and short words', ['an', 'an m', 'an m h and m'], 'an m h and m'],
    ['"got it" heard as words on the way', ['got', 'got to'], 'got it'],
    ['"okay" heard as another single word', ['a', 'again'], 'again'],
  ] as const) {
    it(`${what} never interrupts mid-speech; its transcript at the end resumes playback`, () => {
      const m = talkingOver();
      m.clock.increment(400); // an acknowledgement is over before twoWordsAfterMs
      for (const partial of partials) m.said.next(partial);
      expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
      m.actor.send(segment(2_000, 600));
      expect(m.log.actors.at(-1)).toBe('+overhear');
      m.actor.send({ type: 'OVERHEARD', text: final });
      expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'playback_resumed']);
      expect(m.state()).toBe('{"active":{"turn":{"speaking":"playing"}}}');
    });
  }

  it('a transcript at the end interrupts from two words that say something; one resumes', () => {
    for (const [final, kind] of [
      ['no', 'playback_resumed'],
      ['no thanks', 'interrupted'],
      ['um the menu', 'playback_resumed'],
      ['uh what time', 'interrupted'],
    ] as const) {
      const m = talkingOver();
      m.clock.increment(600);
      m.actor.send(segment(2_000, 600));
      m.actor.send({ type: 'OVERHEARD', text: final });
      expect(m.kinds().slice(0, 3), final).toEqual(['turn_started', 'playback_paused', kind]);
    }
  });

  it('a stop word in the hypothesis so far interrupts at once, however short', () => {
    const m = talkingOver();
    m.said.next('stop');
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'interrupted']);
    expect(m.state()).toBe('{"active":"userSpeaking"}');
  });

  it('the hypothesis is listened for only while the user talks over the agent', () => {
    const m = talkingOver();
    m.actor.send(segment(2_000, 300));
    expect(m.log.actors).toEqual(['+reply:1', '+overhearing', '-overhearing', '+overhear']);
    m.said.next('what do you mean by that'); // nobody listens now
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
    m.actor.send({ type: 'OVERHEARD', text: 'hmm' });
    m.actor.send({ type: 'SPEECH_ONSET' });
    m.actor.send({ type: 'SPEECH_DISMISSED' });
    expect(m.log.actors.filter((a) => a.endsWith('overhearing'))).toEqual([
      '+overhearing',
      '-overhearing',
      '+overhearing',
      '-overhearing',
    ]);
  });

  it('without a hypothesis (an STT that cannot stream), speech that goes on long interrupts; all of it is the next turn', () => {
    const m = talkingOver();
    m.clock.increment(1_500);
    m.actor.send({ type: 'LONG_SPEECH' });
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'interrupted']);
    expect(m.state()).toBe('{"active":"userSpeaking"}');
    m.actor.send(segment(2_000, 2_500));
    expect(m.log.reply[1]).toMatchObject({ turn: 2, input: { startMs: 2_000, durationMs: 2_500 } });
  });

  it('long speech still waits for interruption_min_speech_ms when that is longer', () => {
    const m = talkingOver({ interruptionMinSpeechMs: 2_000 });
    m.clock.increment(1_500);
    m.actor.send({ type: 'LONG_SPEECH' });
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused']);
    m.actor.send(segment(2_000, 1_700));
    m.actor.send({ type: 'OVERHEARD', text: 'hmm' });
    expect(m.kinds()).toEqual(['turn_started', 'playback_paused', 'playback_resumed']);
  });

  it('speech over the greeting interrupts it mid-speech too; the speech is turn 1', () => {
    const m = start({ greeting: 'Hello, this is the booking line of the restaurant.' });
    m.actor.send({ type: 'SPEECH_ONSET' });
    m.clock.increment(300);
    m.said.next('i would like to book');
    expect(m.kinds()).toEqual(['playback_paused', 'interrupted']);
    expect(m.log.emitted[1]).toMatchObject({ type: 'interrupted', turn: 0 });
    m.actor.send(segment(500, 1_500));
    expect(m.log.reply[0]).toMatchObject({ turn: 1, input: { startMs: 500 } });
  });
});
