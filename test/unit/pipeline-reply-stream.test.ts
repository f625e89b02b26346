import { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { playout, type SpeechChunk } from '../../src/pipeline/reply/playout.js';
import { reply, type ReplyEvent, type ReplySource, type ReplyStages } from '../../src/pipeline/reply/reply.js';
import type { SpeechText } from '../../src/pipeline/reply/sentences.js';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';

/**
 * The reply graph with a TTS that takes the answer's text as it is produced (`synthesizeStream`),
 * in virtual time: the answer is a `cold()` marble, the TTS a stand-in that logs what it is given
 * and speaks each flushed piece 2 ms later; the playout is the real one (1000 Hz: 1 sample = 1 ms).
 */
const timing = { sampleRate: 1000, frameMs: 20, leadMs: 60 };
type Cold = TestScheduler['createColdObservable'];

interface StreamLog {
  given: [number, SpeechText | 'end'][];
  opened: number;
  closed: number[];
}

/** A streaming TTS: 10 ms of audio per character of each flushed piece, 2 ms after its flush. */
function streamingTts(ts: TestScheduler, log: StreamLog, fail?: StageFailure) {
  return (text: Observable<SpeechText>): Observable<SpeechChunk> =>
    new Observable<SpeechChunk>((subscriber) => {
      log.opened++;
      let piece = '';
      let sentence = 0;
      const input = text.subscribe({
        next: (t) => {
          log.given.push([ts.now(), t]);
          if (t.type === 'text') return void (piece += t.text);
          const chars = piece.trim().length;
          const index = sentence++;
          piece = '';
          ts.schedule(() => {
            if (fail !== undefined && index === 1) return subscriber.error(fail);
            subscriber.next({ sentence: index, samples: new Int16Array(chars * 10) });
          }, 2);
        },
        complete: () => {
          log.given.push([ts.now(), 'end']);
          ts.schedule(() => subscriber.complete(), 3);
        },
      });
      return () => {
        log.closed.push(ts.now());
        input.unsubscribe();
      };
    });
}

function run(source: ReplySource, answer: (cold: Cold) => Observable<string>, stopAt?: number, fail?: StageFailure) {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const events: [number, ReplyEvent | 'complete'][] = [];
  const log: StreamLog = { given: [], opened: 0, closed: [] };
  let sentenceCalls = 0;
  ts.run(({ cold, flush }) => {
    const stages: ReplyStages = {
      transcribe: () => cold('#'),
      answer: () => answer(cold as unknown as Cold),
      synthesize: () => {
        sentenceCalls++;
        return cold('#');
      },
      synthesizeStream: streamingTts(ts, log, fail),
    };
    const sub = reply(
      source,
      stages,
      playout(() => undefined, timing),
    ).subscribe({
      next: (e) => events.push([ts.now(), e]),
      complete: () => events.push([ts.now(), 'complete']),
    });
    if (stopAt !== undefined) ts.schedule(() => sub.unsubscribe(), stopAt);
    flush();
  });
  return { events, log, sentenceCalls };
}

describe('reply graph with a streaming TTS (marbles)', () => {
  it('pushes the text as it arrives and asks for the first audio at the first clause, before the sentence ends', () => {
    const r = run({ kind: 'text', text: 'open?' }, (cold) =>
      cold('-a-b-c-d---e|', { a: 'Sure,', b: ' we', c: ' open', d: ' at nine.', e: ' Bye.' }),
    );
    expect(r.log.opened).toBe(1);
    expect(r.sentenceCalls).toBe(0);
    expect(r.log.given).toEqual([
      [1, { type: 'text', text: 'Sure,' }],
      [3, { type: 'text', text: ' ' }],
      // the first clause is flushed when the word after it starts, while the sentence goes on
      [3, { type: 'sentence', text: 'Sure,' }],
      [3, { type: 'text', text: 'we' }],
      [5, { type: 'text', text: ' open' }],
      [7, { type: 'text', text: ' at nine.' }],
      // the sentence ends when the space after it comes: flushed there, before the next one's text
      [11, { type: 'text', text: ' ' }],
      [11, { type: 'sentence', text: 'we open at nine.' }],
      [11, { type: 'text', text: 'Bye.' }],
      [12, { type: 'sentence', text: 'Bye.' }],
      [12, 'end'],
    ]);
    // The clause's audio starts playing (t=5) before the rest of its sentence has even been written (t=7).
    expect(r.events).toEqual([
      [0, { type: 'transcribed', text: 'open?' }],
      [3, { type: 'sentence', index: 0, text: 'Sure,' }],
      [5, { type: 'sentence_audio', sentence: 0 }],
      [11, { type: 'sentence', index: 1, text: 'we open at nine.' }],
      [12, { type: 'sentence', index: 2, text: 'Bye.' }],
      [12, { type: 'answered', text: 'Sure, we open at nine. Bye.' }],
      // the frame that joins the clause's tail to the next sentence's head goes out (60 ms ahead) as that arrives
      [13, { type: 'sentence_audio', sentence: 1 }],
      [145, { type: 'sentence_audio', sentence: 2 }],
      [265, { type: 'played', samples: 260 }],
      [265, 'complete'],
    ]);
  });

  it('barge-in: unsubscribing closes the stream mid-answer; nothing more is pushed', () => {
    const r = run(
      { kind: 'text', text: 'hi' },
      (cold) => cold('-a-b 20ms c|', { a: 'One, ', b: 'two ', c: 'three.' }),
      10,
    );
    expect(r.log.closed).toEqual([10]);
    expect(r.log.given.every(([t]) => t <= 10)).toBe(true);
    expect(r.events.map(([, e]) => (typeof e === 'string' ? e : e.type))).toEqual([
      'transcribed',
      'sentence',
      'sentence_audio',
    ]);
  });

  it('a stream that fails mid-answer fails the turn (`failed`), and the stream is closed', () => {
    const down = new StageFailure('synthesize', 'elevenlabs: speech failed: 1011', { id: 'e1', type: 'tts_error' });
    const r = run({ kind: 'text', text: 'hi' }, (cold) => cold('-a-b|', { a: 'One. ', b: 'Two. ' }), undefined, down);
    expect(r.events.at(-2)).toEqual([
      5,
      { type: 'failed', stage: 'synthesize', message: down.message, errorId: 'e1', reason: 'tts_error' },
    ]);
    expect(r.events.at(-1)).toEqual([5, 'complete']);
    expect(r.log.closed).toEqual([5]);
  });

  it('the greeting goes through the stream too, flushed whole', () => {
    const r = run({ kind: 'say', text: 'Welcome, how can I help?' }, (cold) => cold('#'));
    expect(r.log.given.map(([, g]) => g)).toEqual([
      { type: 'text', text: 'Welcome, ' },
      { type: 'sentence', text: 'Welcome,' },
      { type: 'text', text: 'how can I help?' },
      { type: 'sentence', text: 'how can I help?' },
      'end',
    ]);
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
