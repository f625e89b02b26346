import { Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, SimulatedClock } from 'xstate';
import { sessionMachine, type ReplyInput, type SessionEvent } from '../../machines/session.machine.js';
import { defaultAgentSettings, type StoredAgent } from '../../src/schemas/agent.js';
import { sessionMachineInput } from '../../src/sessions/machine-input.js';
import { sessionBacklogMs } from '../../src/pipeline/intake/limits.js';
import { HeardSoFar, maxSettleMs } from '../../src/sessions/heard-so-far.js';

describe('how far the VAD has heard', () => {
  /**
   * When SILENCE_HEARD comes for a wait that ran out at `until`, with the VAD's progress `scored`
   * ([ms, heard until, arrived until]; arrived: as heard unless given).
   */
  function settled(until: number, scored: [at: number, heard: number, arrived?: number][]): number[] {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    const at: number[] = [];
    scheduler.run(() => {
      const heard = new HeardSoFar();
      for (const [ms, wallTime, arrived] of scored)
        scheduler.schedule(() => heard.scored(() => ({ heard: wallTime, arrived: arrived ?? wallTime })), ms);
      heard.silenceHeard(until).subscribe(() => at.push(scheduler.now()));
    });
    return at;
  }

  it('says the silence was heard once the VAD has scored the audio up to the wait, less the last part-window', () => {
    // the wait ran out at 1 000 (wall time); the VAD had scored up to 950 then, 970 at +20 ms
    expect(
      settled(1_000, [
        [0, 950],
        [20, 970],
      ]),
    ).toEqual([20]);
    // already heard: at once
    expect(settled(1_000, [[0, 990]])).toEqual([0]);
  });

  it('stops waiting after maxSettleMs: a client that stopped sending audio has nothing more to hear', () => {
    expect(settled(1_000, [[0, 900]])).toEqual([maxSettleMs]);
  });

  it('waits past maxSettleMs for the VAD to score audio that has arrived (a loaded machine), the VAD backlog bound at most', () => {
    // the audio up to 1 400 has arrived; the VAD, far behind, reaches the wait's end 600 ms later
    expect(
      settled(1_000, [
        [0, 400, 1_400],
        [300, 700, 1_700],
        [600, 990, 2_000],
      ]),
    ).toEqual([600]);
    // a VAD that never gets there holds the turn no longer than its backlog bound
    expect(settled(1_000, [[0, 400, 1_400]])).toEqual([sessionBacklogMs()]);
  });
});

describe('a tentative turn settling', () => {
  /** A smart-endpointing machine whose `silenceHeard` waits for `silence$`. */
  function start() {
    const clock = new SimulatedClock();
    const silence$ = new Subject<SessionEvent>();
    const replies: ReplyInput[] = [];
    const machine = sessionMachine.provide({
      actors: {
        reply: fromEventObservable<SessionEvent, ReplyInput>(({ input }) => {
          replies.push(input);
          return new Observable<SessionEvent>();
        }),
        silenceHeard: fromEventObservable<SessionEvent, void>(() => silence$),
      },
    });
    const input = sessionMachineInput({ ...defaultAgentSettings, greeting: null } as unknown as StoredAgent);
    const actor = createActor(machine, { clock, input });
    actor.start();
    const state = () => JSON.stringify(actor.getSnapshot().value);
    const speechEndedAt = 1_000;
    actor.send({ type: 'SPEECH_START' });
    actor.send({
      type: 'SPEECH_END',
      audio: new Int16Array(160),
      startMs: 0,
      durationMs: 10,
      speechEndedAt,
      decidedAt: speechEndedAt + 64,
    });
    // a question: 300 ms from the end of speech, 200 of them after the transcript
    actor.send({ type: 'TRANSCRIBED', text: 'What time is it?', at: speechEndedAt + 100 });
    clock.increment(200);
    return { actor, state, silence$, replies };
  }

  it('confirms the turn only once the VAD has heard the silence', () => {
    const { state, silence$ } = start();
    expect(state()).toBe('{"active":{"turn":{"tentative":"settling"}}}');
    silence$.next({ type: 'SILENCE_HEARD' });
    expect(state()).toBe('{"active":{"turn":"thinking"}}');
  });

  it('speech the VAD finds in the last window resumes the turn: the next segment joins it', () => {
    const { actor, state, replies } = start();
    actor.send({ type: 'SPEECH_ONSET' });
    expect(state()).toBe('{"active":{"turn":{"tentative":"resuming"}}}');
    actor.send({ type: 'SPEECH_START' });
    expect(state()).toBe('{"active":"userSpeaking"}');
    expect(replies.map((r) => r.turn)).toEqual([1]);
  });
});
