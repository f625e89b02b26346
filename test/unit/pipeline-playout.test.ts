import { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { playout, type PlayoutEvent, type SpeechChunk } from '../../src/pipeline/reply/playout.js';

/** 1000 Hz keeps the arithmetic readable: 1 sample = 1 ms; 20 ms frames are 20 samples. */
const options = { sampleRate: 1000, frameMs: 20, leadMs: 60 };
const chunk = (sentence: number, ms: number): SpeechChunk => ({ sentence, samples: new Int16Array(ms) });

function scheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Runs `chunks` through a playout in virtual time; returns the frames sent and the events, with their times. */
function play(make: (cold: TestScheduler['createColdObservable']) => Observable<SpeechChunk>, stopAt?: number) {
  const ts = scheduler();
  const sent: [number, number][] = [];
  const events: [number, PlayoutEvent | 'complete'][] = [];
  ts.run(({ cold, flush }) => {
    const source = make(cold as unknown as TestScheduler['createColdObservable']);
    const sub = source
      .pipe(playout((frame) => sent.push([ts.now(), frame.length]), options))
      .subscribe({ next: (e) => events.push([ts.now(), e]), complete: () => events.push([ts.now(), 'complete']) });
    if (stopAt !== undefined) ts.schedule(() => sub.unsubscribe(), stopAt);
    flush();
  });
  return { sent, events };
}

describe('playout pacing', () => {
  it('sends the first frames at once, then one frame per frame time, never more than leadMs ahead', () => {
    const { sent, events } = play((cold) => cold('a|', { a: chunk(0, 200) }));
    // 200 ms of audio: 10 frames. Up to 60 ms ahead goes at once (frames at 0, 0, 0, 0: the 4th
    // starts when 60 ms are buffered); then one every 20 ms as the lead drops back to 60 ms.
    expect(sent.map(([t]) => t)).toEqual([0, 0, 0, 0, 20, 40, 60, 80, 100, 120]);
    expect(sent.every(([, n]) => n === 20)).toBe(true);
    // It is over when the last frame has been played: 200 ms after the first was sent.
    expect(events).toEqual([
      [0, { type: 'sentence_audio', sentence: 0 }],
      [200, { type: 'drained', samples: 200 }],
      [200, 'complete'],
    ]);
  });

  it('plays sentences back to back and tells when each one starts; the last frame is padded to a whole frame', () => {
    const { sent, events } = play((cold) => cold('a 99ms b|', { a: chunk(0, 40), b: chunk(1, 30) }));
    expect(sent).toEqual([
      [0, 20],
      [0, 20],
      [100, 20],
      [100, 20],
    ]);
    expect(events).toEqual([
      [0, { type: 'sentence_audio', sentence: 0 }],
      [100, { type: 'sentence_audio', sentence: 1 }],
      [140, { type: 'drained', samples: 80 }],
      [140, 'complete'],
    ]);
  });

  it('a gap in the speech does not let later audio run ahead: the lead is counted from now', () => {
    const { sent } = play((cold) => cold('a 499ms b|', { a: chunk(0, 20), b: chunk(0, 100) }));
    expect(sent.map(([t]) => t)).toEqual([0, 500, 500, 500, 500, 520]);
  });

  it('unsubscribing stops at once: no frame is sent after it, and no timer is left', () => {
    const { sent, events } = play((cold) => cold('a|', { a: chunk(0, 1000) }), 50);
    expect(sent.map(([t]) => t)).toEqual([0, 0, 0, 0, 20, 40]);
    expect(events).toEqual([[0, { type: 'sentence_audio', sentence: 0 }]]);
  });

  it('an empty answer is over at once', () => {
    const { sent, events } = play((cold) => cold('---|'));
    expect(sent).toEqual([]);
    expect(events).toEqual([
      [3, { type: 'drained', samples: 0 }],
      [3, 'complete'],
    ]);
  });
});

describe('playout into a sink that cannot pause (dropQueued)', () => {
  it('on pause the sink drops what it holds, and that audio is sent again on resume: nothing lost, nothing twice', () => {
    const ts = scheduler();
    const frames: [number, number][] = []; // [time, first sample value]
    const events: [number, PlayoutEvent | 'complete'][] = [];
    let drops = 0;
    ts.run(({ cold, flush }) => {
      // sample i holds the value i: 200 ms of audio
      const speech = cold('a|', { a: { sentence: 0, samples: Int16Array.from({ length: 200 }, (_, i) => i) } });
      const paused$ = cold<boolean>('f 49ms t 99ms f', { f: false, t: true });
      speech
        .pipe(
          playout((frame) => frames.push([ts.now(), frame[0]!]), { ...options, paused$, dropQueued: () => drops++ }),
        )
        .subscribe({ next: (e) => events.push([ts.now(), e]), complete: () => events.push([ts.now(), 'complete']) });
      flush();
    });
    // By 50 ms, 120 ms had been sent (0–119) and 50 played: the sink's 70 ms are dropped once…
    expect(drops).toBe(1);
    expect(frames.filter(([t]) => t < 50).map(([, first]) => first)).toEqual([0, 20, 40, 60, 80, 100]);
    // …and sent again from sample 50 when playback resumes at 150, in whole frames (the 10 ms
    // tail of the frame that was playing joined with the next), then the rest, paced as before;
    // the last 10 ms go out padded with 10 ms of silence.
    expect(frames.filter(([t]) => t >= 150).map(([, first]) => first)).toEqual([50, 70, 90, 110, 130, 150, 170, 190]);
    expect(events).toEqual([
      [0, { type: 'sentence_audio', sentence: 0 }],
      [310, { type: 'drained', samples: 210 }],
      [310, 'complete'],
    ]);
  });
});

it('a playout that starts while playback is paused sends nothing until it resumes (and drops nothing)', () => {
  const ts = scheduler();
  const frames: number[] = [];
  let drops = 0;
  ts.run(({ cold, flush }) => {
    const speech = cold('a|', { a: chunk(0, 40) });
    const paused$ = cold<boolean>('t 99ms f', { t: true, f: false });
    speech.pipe(playout(() => frames.push(ts.now()), { ...options, paused$, dropQueued: () => drops++ })).subscribe();
    flush();
  });
  expect(drops).toBe(0);
  expect(frames).toEqual([100, 100]);
});
