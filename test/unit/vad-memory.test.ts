/**
 * Memory per live session (issue "Capacity", item 4): a session's microphone graph (intake,
 * resampler, batched VAD) is allocated when it starts, sized by the agent's settings, and then
 * holds steady: a minute of real 48 kHz speech through it leaves nothing behind (heap snapshot diff).
 */
import { Observable, Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceFrames, type AudioFrame } from '../../src/audio/audio-frame.js';
import { AudioBacklog } from '../../src/pipeline/intake/audio-backlog.js';
import { listen, type HeardEvent } from '../../src/pipeline/listen.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import { readWav } from '../../src/audio/wav.js';
import { heapCounts, heapGrowth } from '../support/heap-snapshot.js';

let vad: SileroVad;
let frames: AudioFrame[];
beforeAll(async () => {
  vad = await SileroVad.load();
  const clip = await readWav(new URL('../fixtures/audio/hello-48k.wav', import.meta.url).pathname);
  // 70 s of speech and pauses as 20 ms frames (views), made before any snapshot
  const seconds = 70;
  const audio = new Int16Array(48_000 * seconds);
  for (let at = 0; at < audio.length; at += clip.samples.length)
    audio.set(clip.samples.subarray(0, Math.min(clip.samples.length, audio.length - at)), at);
  frames = sliceFrames({ samples: audio, sampleRate: 48_000 }, 960);
}, 60_000);
afterAll(async () => {
  await vad.close();
});

describe('memory per live session', () => {
  it(
    'holds steady over a minute of audio: a heap snapshot diff finds nothing left behind',
    { timeout: 180_000 },
    async () => {
      const backlog = new AudioBacklog(1 << 24);
      const input = new Subject<AudioFrame>();
      let clock = 0;
      const heard: HeardEvent['type'][] = [];
      const session = listen(input as Observable<AudioFrame>, {
        vad,
        vadOptions: {},
        backlog,
        now: () => clock,
      }).subscribe((e) => heard.push(e.type));
      /** Sends frames [from, to) at real time on the fake clock, waiting for the VAD to keep up. */
      const feed = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          clock += 20;
          input.next(frames[i]!);
          if (backlog.bytes >= 1024) while (backlog.bytes >= 1024) await new Promise((r) => setImmediate(r));
        }
      };
      await feed(0, 500); // 10 s: every lazy buffer allocated, JIT warm
      const utterancesBefore = heard.length;
      const before = await heapCounts();
      await feed(500, 3500); // one minute
      const speechEvents = heard.length - utterancesBefore;
      const after = await heapCounts();
      session.unsubscribe();

      // the minute was heard (the clip has one utterance every ~4.8 s) …
      expect(speechEvents).toBeGreaterThanOrEqual(2 * 10);
      // … and left nothing behind but the events the test itself kept (a string per event in `heard`)
      const grown = heapGrowth(before, after);
      const total = grown.reduce((n, g) => n + Math.max(0, g.bytes), 0);
      expect(total, JSON.stringify(grown.slice(0, 10))).toBeLessThan(64 * 1024);
      expect(grown.filter((g) => g.count > speechEvents + 50)).toEqual([]);
    },
  );
});
