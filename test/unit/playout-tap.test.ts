import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { playout, type PlayoutTap } from '../../src/pipeline/reply/playout.js';

/** 1000 Hz: 1 sample = 1 ms; 20 ms frames, 60 ms lead. */
const options = { sampleRate: 1000, frameMs: 20, leadMs: 60 };

type Told = [number, string, ...number[]];

/** Plays 200 ms in virtual time with `paused` as the marble of playback paused; returns what the tap was told, with times. */
function tapOf(pausedMarble: string | null, stopAt: number | null, dropQueued: boolean): Told[] {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const told: Told[] = [];
  const tap: PlayoutTap = {
    frame: (samples, delayMs) => told.push([ts.now(), 'frame', samples[0]!, delayMs]),
    cut: () => told.push([ts.now(), 'cut']),
    pause: () => told.push([ts.now(), 'pause']),
    resume: () => told.push([ts.now(), 'resume']),
  };
  ts.run(({ cold, flush }) => {
    const speech = cold('a|', { a: { sentence: 0, samples: Int16Array.from({ length: 200 }, (_, i) => i) } });
    const paused$ = pausedMarble === null ? undefined : cold<boolean>(pausedMarble, { f: false, t: true });
    const sub = speech
      .pipe(
        playout(() => undefined, {
          ...options,
          tap,
          ...(paused$ === undefined ? {} : { paused$ }),
          ...(dropQueued ? { dropQueued: () => undefined } : {}),
        }),
      )
      .subscribe();
    if (stopAt !== null) ts.schedule(() => sub.unsubscribe(), stopAt);
    flush();
  });
  return told;
}

describe('the playout tap (what a recording hears)', () => {
  it('tells each frame with when it starts playing, and a cut where barge-in stopped it', () => {
    const told = tapOf(null, 50, false);
    expect(told).toEqual([
      // 0, 20, 40 and 60 ms of audio go at once, each due when the one before it has played
      [0, 'frame', 0, 0],
      [0, 'frame', 20, 20],
      [0, 'frame', 40, 40],
      [0, 'frame', 60, 60],
      [20, 'frame', 80, 60],
      [40, 'frame', 100, 60],
      [50, 'cut'],
    ]);
  });

  it("a player that pauses: pause and resume (the client's buffered audio plays on)", () => {
    const told = tapOf('f 29ms t 99ms f', null, false);
    expect(told.filter(([, what]) => what !== 'frame')).toEqual([
      [30, 'pause'],
      [130, 'resume'],
      [300, 'cut'], // the end (200 ms of audio, 100 ms paused): nothing is left to cut
    ]);
    // after resume the next frame is queued behind the 70 ms the client still held
    expect(told.find(([t, what]) => t >= 130 && what === 'frame')).toEqual([140, 'frame', 100, 60]);
  });

  it('a sink that drops what it holds: a cut at the pause, then the dropped audio is told again as it is resent', () => {
    const told = tapOf('f 29ms t 99ms f', null, true);
    expect(told.filter(([, what]) => what !== 'frame')).toEqual([
      [30, 'cut'],
      [310, 'cut'], // resent from sample 30 (mid-frame): the last frame is padded with 10 ms of silence
    ]);
    expect(told.find(([t, what]) => t >= 130 && what === 'frame')).toEqual([130, 'frame', 30, 0]);
  });
});
