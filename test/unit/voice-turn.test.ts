import { asyncScheduler, type Observable, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { createActor, fromEventObservable } from 'xstate';
import {
  sessionMachine,
  type ReplyInput,
  type SessionEvent,
  type SessionMachineInput,
} from '../../machines/session.machine.js';
import { createLogger } from '../../src/logger.js';
import { playout } from '../../src/pipeline/reply/playout.js';
import type { ReplyStages } from '../../src/pipeline/reply/reply.js';
import type { StoredAgent } from '../../src/records/agent.js';
import type { Message } from '../../src/records/conversation.js';
import type { Session } from '../../src/records/session.js';
import type { ServerEvent } from '../../src/realtime/websocket/protocol.js';
import { RecordQueue } from '../../src/sessions/record-queue.js';
import { turnEvents, type TurnGraph } from '../../src/sessions/voice-turn.js';
import type { AgentTurn, PlayedTurn, TurnRecorder } from '../../src/turns/turn-recorder.js';

/**
 * The session machine deciding barge-in over a real reply graph, all in virtual time: the
 * machine's timers run on the TestScheduler, `cold()` marbles stand in for the user, the answer
 * and TTS. What the client is sent and what is recorded are checked, not the graph's insides.
 */
const input: SessionMachineInput = {
  greeting: null,
  interruptionsEnabled: true,
  interruptionMinSpeechMs: 300,
  idleTimeoutMs: 60_000,
  maxDurationMs: 600_000,
};
const agent = { id: 'agt_1', mode: 'passthrough' } as StoredAgent;
const session = { id: 'ses_1', conversation_id: 'cnv_1' } as Session;

type Cold = TestScheduler['createColdObservable'];

async function converse(
  user: (cold: Cold) => Observable<SessionEvent>,
  stages: (cold: Cold) => ReplyStages,
): Promise<{ sent: [number, ServerEvent | 'audio'][]; recorded: [string, unknown][] }> {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const sent: [number, ServerEvent | 'audio'][] = [];
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
    const graph: TurnGraph = {
      transport: { send: (e) => sent.push([ts.now(), e]), outputSampleRate: 1000 },
      recorder,
      records: new RecordQueue(createLogger('silent')),
      agent,
      session,
      now: () => ts.now(),
      stages: stages(c),
      speak: playout(() => sent.push([ts.now(), 'audio']), { sampleRate: 1000, frameMs: 20, leadMs: 60 }),
    };
    const machine = sessionMachine.provide({
      actors: {
        listen: fromEventObservable<SessionEvent, void>(() => user(c)),
        reply: fromEventObservable<SessionEvent, ReplyInput>(({ input: i }) => turnEvents(graph, i.turn, i.input)),
      },
    });
    const clock = {
      setTimeout: (fn: () => void, ms: number) => asyncScheduler.schedule(fn, ms),
      clearTimeout: (s: Subscription) => s.unsubscribe(),
    };
    const actor = createActor(machine, { input, clock });
    actor.on('interrupted', ({ turn }) => sent.push([ts.now(), { type: 'interrupted', turn }]));
    actor.start();
    flush();
    actor.stop();
  });
  await new Promise((r) => setTimeout(r, 10)); // the record writes (real promises)
  return { sent, recorded };
}

const text = (t: string): SessionEvent => ({ type: 'TEXT', text: t, receivedAt: 0 });
const speech = (): SessionEvent => ({ type: 'SPEECH_START' });
const types = (sent: [number, ServerEvent | 'audio'][]) =>
  sent.filter(([, e]) => e !== 'audio').map(([t, e]) => [t, (e as ServerEvent).type]);

describe('barge-in: the machine decides, the graph is unsubscribed', () => {
  it('speech over the answer for interruption_min_speech_ms stops the audio; the answer already stored gets its spoken part', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a 49ms b', { a: text('hi'), b: speech() }),
      (cold) => ({
        transcribe: () => cold('#'),
        answer: () => cold('10ms a|', { a: 'One. Two. Three.' }),
        synthesize: () => cold('-s|', { s: new Int16Array(200) }),
      }),
    );
    // SPEECH_START at 50 + 300 ms overlap: interrupted at 350; sentence 1 started at 211.
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [10, 'response'],
      [10, 'response'],
      [11, 'response'],
      [11, 'response'],
      [11, 'audio_start'],
      [350, 'interrupted'],
    ]);
    expect(sent.filter(([t, e]) => e === 'audio' && t > 350)).toEqual([]);
    expect(sent.find(([, e]) => e !== 'audio' && e.type === 'response' && e.final)?.[1]).toMatchObject({
      text: 'One. Two. Three.',
    });
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'complete', text: 'One. Two. Three.', source: 'webhook' }],
      ['played', { id: 'msg_1', interrupted: true, spoken: 'One. Two.' }],
    ]);
  });

  it('barge-in while the LLM is still streaming stores the spoken part as an interrupted answer', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a 49ms b', { a: text('hi'), b: speech() }),
      (cold) => ({
        transcribe: () => cold('#'),
        answer: () => cold('10ms a 99ms b 999ms c|', { a: 'One. ', b: 'Two. ', c: 'Three.' }),
        synthesize: () => cold('-s|', { s: new Int16Array(200) }),
      }),
    );
    expect(types(sent).at(-1)).toEqual([350, 'interrupted']);
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'interrupted', text: 'One. Two.', source: 'webhook' }],
      ['played', { id: 'msg_1', interrupted: true, spoken: 'One. Two.' }],
    ]);
  });

  it('a short overlap does not interrupt: the answer plays out and is recorded complete', async () => {
    const { sent, recorded } = await converse(
      (cold) =>
        cold('a 49ms b 99ms c', {
          a: text('hi'),
          b: speech(),
          c: { type: 'SPEECH_END', audio: new Int16Array(0), durationMs: 0, speechEndedAt: 0, decidedAt: 0 },
        }),
      (cold) => ({
        transcribe: () => cold('#'),
        answer: () => cold('a|', { a: 'One.' }),
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
      }),
    );
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      // 'One.' is a sentence once the answer has ended (at 1): it might have gone on.
      [1, 'response'],
      [1, 'response'],
      [1, 'audio_start'],
      [101, 'audio_end'],
    ]);
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'complete', text: 'One.', source: 'webhook' }],
      ['played', { id: 'msg_1', interrupted: false, spoken: 'One.' }],
    ]);
  });
});
