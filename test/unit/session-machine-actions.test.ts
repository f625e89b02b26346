import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, fromPromise, SimulatedClock } from 'xstate';
import {
  sessionMachine,
  type ActOutput,
  type CallAction,
  type ReplyInput,
  type SessionEmitted,
  type SessionEvent,
} from '../../machines/session.machine.js';

/**
 * Call control in the session machine: a turn's ACT (sent once its words have played) moves to
 * `acting`, where the `act` actor carries the action out with no barge-in; done ends the session
 * with the action's reason, failed goes back to listening.
 */

function start(act: (action: CallAction) => Promise<ActOutput>) {
  const log = { reply: [] as ReplyInput[], acted: [] as CallAction[], emitted: [] as SessionEmitted[] };
  const machine = sessionMachine.provide({
    actors: {
      reply: fromEventObservable<SessionEvent, ReplyInput>(({ input }) => {
        log.reply.push(input);
        return new Observable<SessionEvent>();
      }),
      act: fromPromise<ActOutput, CallAction>(({ input }) => {
        log.acted.push(input);
        return act(input);
      }),
    },
  });
  const actor = createActor(machine, {
    clock: new SimulatedClock(),
    input: {
      greeting: null,
      interruptionsEnabled: true,
      interruptionMinSpeechMs: 300,
      idleTimeoutMs: 10_000,
      maxDurationMs: 60_000,
      turnTaking: {
        smart: false,
        waits: { punctuationMs: 300, numberMs: 1_200, maxMs: 1_500, defaultMs: 1_000 },
        smartTurnThreshold: 0.5,
        backchannelWords: ['okay'],
        stopWords: ['stop'],
      },
    },
  });
  actor.on('ended', (e) => log.emitted.push(e));
  actor.start();
  const state = () => JSON.stringify(actor.getSnapshot().value);
  return { actor, log, state };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('session machine: call control', () => {
  it('end_call after the turn: acting, then ended agent_hangup', async () => {
    const { actor, log, state } = start(() => Promise.resolve('agent_hangup'));
    actor.send({ type: 'TEXT', text: 'bye', receivedAt: 0 });
    actor.send({ type: 'AUDIO_STARTED' });
    actor.send({ type: 'ACT', action: { type: 'end_call' } });
    expect(state()).toBe('{"active":"acting"}');
    await flush();
    expect(log.acted).toEqual([{ type: 'end_call' }]);
    expect(actor.getSnapshot().status).toBe('done');
    expect(log.emitted).toEqual([{ type: 'ended', reason: 'agent_hangup', error: null }]);
  });

  it('while a transfer is under way, speech and text do not interrupt it; done ends `transferred`', async () => {
    let finish!: (reason: ActOutput) => void;
    const { actor, log, state } = start(() => new Promise((resolve) => (finish = resolve)));
    actor.send({ type: 'TEXT', text: 'a person please', receivedAt: 0 });
    actor.send({ type: 'ACT', action: { type: 'transfer', to: 'tel:+15105550100' } });
    actor.send({ type: 'SPEECH_START' });
    actor.send({ type: 'TEXT', text: 'hello?', receivedAt: 1 });
    expect(state()).toBe('{"active":"acting"}');
    expect(log.reply).toHaveLength(1);
    finish('transferred');
    await flush();
    expect(log.emitted).toEqual([{ type: 'ended', reason: 'transferred', error: null }]);
  });

  it('a failed transfer goes back to listening and the next turn runs', async () => {
    const { actor, log, state } = start(() => Promise.reject(new Error('refused')));
    actor.send({ type: 'TEXT', text: 'transfer me', receivedAt: 0 });
    actor.send({ type: 'ACT', action: { type: 'transfer', to: null } });
    await flush();
    expect(state()).toBe('{"active":"listening"}');
    expect(actor.getSnapshot().context.action).toBeNull();
    actor.send({ type: 'TEXT', text: 'are you there?', receivedAt: 1 });
    expect(log.reply.map((r) => r.turn)).toEqual([1, 2]);
    expect(log.emitted).toEqual([]);
  });

  it('a client hang-up while acting ends the session client_hangup', async () => {
    const { actor, log } = start(() => new Promise(() => undefined));
    actor.send({ type: 'TEXT', text: 'transfer me', receivedAt: 0 });
    actor.send({ type: 'ACT', action: { type: 'transfer', to: null } });
    actor.send({ type: 'HANGUP' });
    await flush();
    expect(log.emitted).toEqual([{ type: 'ended', reason: 'client_hangup', error: null }]);
  });
});
