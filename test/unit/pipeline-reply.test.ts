import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { playout } from '../../src/pipeline/reply/playout.js';
import { reply, type ReplyEvent, type ReplySource, type ReplyStages } from '../../src/pipeline/reply/reply.js';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';

/**
 * The reply graph in virtual time: `cold()` marbles stand in for STT, the answer (webhook or LLM)
 * and TTS; the playout is the real one. 1000 Hz audio: 1 sample = 1 ms, 20 ms frames.
 */
const timing = { sampleRate: 1000, frameMs: 20, leadMs: 60 };
const audio = (ms: number) => new Int16Array(ms);

interface Run {
  events: [number, ReplyEvent | 'complete' | 'error'][];
  sent: number[];
}

type Cold = TestScheduler['createColdObservable'];

function run(
  source: ReplySource,
  stages: (cold: Cold) => ReplyStages,
  check: (
    ts: TestScheduler,
    helpers: { expectSubscriptions: (subs: unknown) => { toBe: (m: string) => void } },
  ) => void = () => {},
  stopAt?: number,
): Run {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const result: Run = { events: [], sent: [] };
  ts.run(({ cold, flush, expectSubscriptions }) => {
    const speak = playout(() => result.sent.push(ts.now()), timing);
    const sub = reply(source, stages(cold as unknown as Cold), speak).subscribe({
      next: (e) => result.events.push([ts.now(), e]),
      complete: () => result.events.push([ts.now(), 'complete']),
      error: () => result.events.push([ts.now(), 'error']),
    });
    if (stopAt !== undefined) ts.schedule(() => sub.unsubscribe(), stopAt);
    flush();
    check(ts, { expectSubscriptions: expectSubscriptions as never });
  });
  return result;
}

describe('reply graph (marbles)', () => {
  it('a turn: transcript, captions as sentences are produced, audio per sentence, played', () => {
    const r = run({ kind: 'audio', audio: audio(10) }, (cold) => ({
      transcribe: () => cold('--a|', { a: ' book a table ' }),
      answer: () => cold('-x-y|', { x: 'Sure. ', y: 'Done.' }),
      synthesize: (text) => cold('-s|', { s: audio(text === 'Sure.' ? 40 : 20) }),
    }));
    expect(r.events).toEqual([
      [2, { type: 'transcribed', text: 'book a table' }],
      [3, { type: 'sentence', index: 0, text: 'Sure.' }],
      [4, { type: 'sentence_audio', sentence: 0 }],
      [6, { type: 'sentence', index: 1, text: 'Done.' }],
      [6, { type: 'answered', text: 'Sure. Done.' }],
      [7, { type: 'sentence_audio', sentence: 1 }],
      // 40 ms from t=4, then 20 ms back to back: played out at 64.
      [64, { type: 'played', samples: 60 }],
      [64, 'complete'],
    ]);
    expect(r.sent).toEqual([4, 4, 7]);
  });

  it('nothing said: the reply ends after an empty transcript, without calling the answer', () => {
    let answered = 0;
    const r = run({ kind: 'audio', audio: audio(10) }, (cold) => ({
      transcribe: () => cold('-a|', { a: '  ' }),
      answer: () => {
        answered++;
        return cold('a|', { a: 'x' });
      },
      synthesize: () => cold('s|', { s: audio(20) }),
    }));
    expect(r.events).toEqual([
      [1, { type: 'transcribed', text: '' }],
      [1, 'complete'],
    ]);
    expect(answered).toBe(0);
  });

  it('no words in confirmed speech: `noWords` judges the audio; its failure fails the turn, its end ends it', () => {
    const spoken = audio(10);
    const judged: Int16Array[] = [];
    const stages = (verdict: string, error?: StageFailure) => (cold: Cold) => ({
      transcribe: () => cold('-a|', { a: '' }),
      answer: () => cold('a|', { a: 'x' }),
      synthesize: () => cold('s|', { s: audio(20) }),
      noWords: (a: Int16Array) => {
        judged.push(a);
        return cold<never>(verdict, undefined, error);
      },
    });
    const nothingSaid = run({ kind: 'audio', audio: spoken }, stages('--|'));
    expect(nothingSaid.events).toEqual([
      [1, { type: 'transcribed', text: '' }],
      [3, 'complete'],
    ]);
    const unheard = new StageFailure('transcribe', 'pocketsphinx: the speech matches none of the expected phrases', {
      id: 'e1',
      type: 'stt_error',
    });
    const failed = run({ kind: 'audio', audio: spoken }, stages('--#', unheard));
    expect(failed.events).toEqual([
      [1, { type: 'transcribed', text: '' }],
      [3, { type: 'failed', stage: 'transcribe', message: unheard.message, errorId: 'e1', reason: 'stt_error' }],
      [3, 'complete'],
    ]);
    expect(judged).toEqual([spoken, spoken]);
  });

  it('barge-in mid-synthesis: unsubscribing aborts the LLM stream and the TTS call in flight; nothing is sent', () => {
    let llm!: ReturnType<Cold>;
    const tts: ReturnType<Cold>[] = [];
    const r = run(
      { kind: 'text', text: 'hi' },
      (cold) => ({
        transcribe: () => cold('#'),
        answer: () => (llm = cold('-x----y|', { x: 'One. ', y: 'Two.' })),
        synthesize: () => {
          tts.push(cold('-----s|', { s: audio(20) }));
          return tts.at(-1)! as Observable<Int16Array>;
        },
      }),
      (_ts, { expectSubscriptions }) => {
        expectSubscriptions(llm.subscriptions).toBe('^--!');
        expectSubscriptions(tts[0]!.subscriptions).toBe('-^-!');
      },
      3,
    );
    expect(r.events).toEqual([
      [0, { type: 'transcribed', text: 'hi' }],
      [1, { type: 'sentence', index: 0, text: 'One.' }],
    ]);
    expect(r.sent).toEqual([]);
    expect(tts).toHaveLength(1);
  });

  it('barge-in mid-playout: no frame goes out after the unsubscription, and the pending TTS is dropped', () => {
    let llm!: ReturnType<Cold>;
    const tts: ReturnType<Cold>[] = [];
    const r = run(
      { kind: 'text', text: 'hi' },
      (cold) => ({
        transcribe: () => cold('#'),
        answer: () => (llm = cold('x 99ms y 99ms |', { x: 'One. ', y: 'Two. ' })),
        synthesize: (text) => {
          tts.push(text === 'One.' ? cold('s 9ms |', { s: audio(500) }) : cold('100ms s |', { s: audio(500) }));
          return tts.at(-1)! as Observable<Int16Array>;
        },
      }),
      (_ts, { expectSubscriptions }) => {
        expectSubscriptions(llm.subscriptions).toBe('^ 149ms !');
        expectSubscriptions(tts[0]!.subscriptions).toBe('^ 9ms !');
        expectSubscriptions(tts[1]!.subscriptions).toBe('100ms ^ 49ms !');
      },
      150,
    );
    expect(r.sent.every((t) => t <= 150)).toBe(true);
    expect(r.sent.at(-1)).toBe(140);
    expect(r.events.map(([, e]) => (typeof e === 'string' ? e : e.type))).toEqual([
      'transcribed',
      'sentence',
      'sentence_audio',
      'sentence',
    ]);
  });

  it('a failing stage ends the reply with `failed` (silence), unsubscribing the rest', () => {
    const sttDown = new StageFailure('transcribe', 'openai: HTTP 503', { id: 'err_1', type: 'stt_error' });
    const stt = run({ kind: 'audio', audio: audio(10) }, (cold) => ({
      transcribe: () => cold('--#', undefined, sttDown),
      answer: () => cold('a|', { a: 'x' }),
      synthesize: () => cold('s|', { s: audio(20) }),
    }));
    expect(stt.events).toEqual([
      [2, { type: 'failed', stage: 'transcribe', message: 'openai: HTTP 503', errorId: 'err_1', reason: 'stt_error' }],
      [2, 'complete'],
    ]);

    const ttsDown = new StageFailure('synthesize', 'espeak: exited 1', { id: null, type: 'tts_error' });
    const tts = run({ kind: 'text', text: 'hi' }, (cold) => ({
      transcribe: () => cold('#'),
      answer: () => cold('a|', { a: 'One. Two. Three.' }),
      synthesize: (text) => (text === 'Two.' ? cold('-#', undefined, ttsDown) : cold('-s|', { s: audio(100) })),
    }));
    expect(tts.events.map(([t, e]) => [t, typeof e === 'string' ? e : e.type])).toEqual([
      [0, 'transcribed'],
      [0, 'sentence'],
      [0, 'sentence'],
      [1, 'sentence'],
      [1, 'answered'],
      [1, 'sentence_audio'],
      [3, 'failed'],
      [3, 'complete'],
    ]);
    expect(tts.sent.every((t) => t <= 3)).toBe(true);
  });

  it('a bug in a stage is an error, not a failed turn (the session ends)', () => {
    const r = run({ kind: 'text', text: 'hi' }, (cold) => ({
      transcribe: () => cold('#'),
      answer: () => cold('-#', undefined, new TypeError('bug')),
      synthesize: () => cold('s|', { s: audio(20) }),
    }));
    expect(r.events).toEqual([
      [0, { type: 'transcribed', text: 'hi' }],
      [1, 'error'],
    ]);
  });

  it('the greeting says its text without transcribing or answering', () => {
    const r = run({ kind: 'say', text: 'Welcome. How can I help?' }, (cold) => ({
      transcribe: () => cold('#'),
      answer: () => cold('#'),
      synthesize: () => cold('s|', { s: audio(20) }),
    }));
    expect(r.events.map(([, e]) => (typeof e === 'string' ? e : e.type))).toEqual([
      'sentence',
      'sentence',
      'answered',
      'sentence_audio',
      'sentence_audio',
      'played',
      'complete',
    ]);
  });
});
