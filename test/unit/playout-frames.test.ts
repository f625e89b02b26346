import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { playout, type PlayoutEvent, type SpeechChunk } from '../../src/pipeline/reply/playout.js';

/** 1000 Hz: 1 sample = 1 ms; 20 ms frames (20 samples), 60 ms lead. */
const options = { sampleRate: 1000, frameMs: 20, leadMs: 60 };

/** Speech whose samples count up from `first` (never 0, so padding reads apart from speech). */
const speech = (sentence: number, length: number, first: number): SpeechChunk => ({
  sentence,
  samples: Int16Array.from({ length }, (_, i) => first + i),
});

interface Played {
  /** [time, samples] of each frame sent, copied as sent. */
  frames: [number, number[]][];
  events: [number, PlayoutEvent | 'complete'][];
}

function play(marble: string, values: Record<string, SpeechChunk>, stopAt?: number): Played {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const played: Played = { frames: [], events: [] };
  ts.run(({ cold, flush }) => {
    const sub = cold(marble, values)
      .pipe(playout((frame) => played.frames.push([ts.now(), Array.from(frame)]), options))
      .subscribe({
        next: (e) => played.events.push([ts.now(), e]),
        complete: () => played.events.push([ts.now(), 'complete']),
      });
    if (stopAt !== undefined) ts.schedule(() => sub.unsubscribe(), stopAt);
    flush();
  });
  return played;
}

const range = (from: number, length: number) => Array.from({ length }, (_, i) => from + i);
const silence = (length: number) => new Array<number>(length).fill(0);

describe('playout frames: every message is exactly one frame', () => {
  it('chunks of any size (sentences, resampler output) go out as whole frames, in order, padded only at the end', () => {
    // three sentences of 33, 47 and 25 ms, the second in 7-sample pieces as a resampler may hand it
    const pieces: Record<string, SpeechChunk> = { a: speech(0, 33, 1) };
    let marble = 'a';
    for (let i = 0; i < 7; i++) {
      const key = String.fromCharCode(98 + i);
      pieces[key] = { sentence: 1, samples: speech(1, 47, 34).samples.subarray(i * 7, i * 7 + 7) };
      marble += key;
    }
    pieces['z'] = speech(2, 25, 81);
    const { frames, events } = play(`(${marble}z|)`, pieces);
    for (const [, frame] of frames) expect(frame).toHaveLength(20);
    // nothing lost, nothing twice: the speech (105 samples), then 15 samples of silence
    expect(frames.flatMap(([, frame]) => frame)).toEqual([...range(1, 105), ...silence(15)]);
    // each sentence told before the frame holding its first sample
    expect(events.filter(([, e]) => e !== 'complete' && e.type === 'sentence_audio')).toEqual([
      [0, { type: 'sentence_audio', sentence: 0 }],
      [0, { type: 'sentence_audio', sentence: 1 }],
      [20, { type: 'sentence_audio', sentence: 2 }],
    ]);
    expect(events.at(-2)).toEqual([120, { type: 'drained', samples: 120 }]);
  });

  it('a short tail waits for the next chunk and goes out joined with its head', () => {
    const { frames, events } = play('a 9ms b|', { a: speech(0, 70, 1), b: speech(1, 30, 71) });
    expect(frames).toEqual([
      [0, range(1, 20)],
      [0, range(21, 20)],
      [0, range(41, 20)],
      // the 10-sample tail of sentence 0 waited: sentence 1 came at 10 ms, before the client ran dry
      [10, range(61, 20)],
      [20, range(81, 20)],
    ]);
    expect(events.slice(0, 2)).toEqual([
      [0, { type: 'sentence_audio', sentence: 0 }],
      [10, { type: 'sentence_audio', sentence: 1 }],
    ]);
    expect(events.at(-2)).toEqual([100, { type: 'drained', samples: 100 }]);
  });

  it('a tail the next chunk does not reach in time goes out padded when the client is one frame from running dry', () => {
    const { frames } = play('a 199ms b|', { a: speech(0, 70, 1), b: speech(1, 40, 71) });
    expect(frames).toEqual([
      [0, range(1, 20)],
      [0, range(21, 20)],
      [0, range(41, 20)],
      // 60 ms were sent at 0: at 40 ms the client holds one frame; the tail goes out behind it
      [40, [...range(61, 10), ...silence(10)]],
      [200, range(71, 20)],
      [200, range(91, 20)],
    ]);
  });

  it('barge-in while a tail waits sends nothing more', () => {
    const { frames, events } = play('a 99ms b|', { a: speech(0, 70, 1), b: speech(1, 40, 71) }, 30);
    expect(frames.map(([t]) => t)).toEqual([0, 0, 0]);
    expect(events).toEqual([[0, { type: 'sentence_audio', sentence: 0 }]]);
  });
});
