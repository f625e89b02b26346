import { Observable, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceFrames, type AudioFrame } from '../../src/audio/audio-frame.js';
import { ArrivalClock } from '../../src/pipeline/intake/arrival-clock.js';
import { AudioBacklog } from '../../src/pipeline/intake/audio-backlog.js';
import { RealTimeMeter } from '../../src/pipeline/intake/real-time-meter.js';
import { listen, type HeardEvent } from '../../src/pipeline/listen.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import { readWav } from '../../src/audio/wav.js';

describe('real-time meter', () => {
  it('admits real time plus the allowance, and refills at real time', () => {
    const meter = new RealTimeMeter(100, 0);
    // 100 ms of allowance at t=0: five 20 ms frames at once, the sixth is refused.
    expect([1, 2, 3, 4, 5, 6].map(() => meter.admit(20, 0))).toEqual([true, true, true, true, true, false]);
    expect(meter.admit(20, 19)).toBe(false);
    expect(meter.admit(20, 20)).toBe(true);
    // A client at exactly real time is never refused.
    const steady = new RealTimeMeter(100, 0);
    expect(Array.from({ length: 500 }, (_, i) => steady.admit(20, i * 20)).every(Boolean)).toBe(true);
    // Silence does not bank more than the allowance.
    expect(steady.admit(20, 1_000_000)).toBe(true);
    expect(Array.from({ length: 10 }, () => steady.admit(20, 1_000_000)).filter(Boolean)).toHaveLength(4);
  });
});

describe('audio backlog', () => {
  it('bounds each session and the process, and gives bytes back when the VAD has read them', () => {
    const process = new AudioBacklog(100);
    const a = process.session(60);
    const b = process.session(60);
    expect(a.admit(60)).toBe('ok');
    expect(a.admit(1)).toBe('session');
    expect(b.admit(40)).toBe('ok');
    expect(b.admit(1)).toBe('process');
    a.release(60);
    expect(b.admit(20)).toBe('ok');
    expect(process.bytes).toBe(60);
  });
});

describe('arrival clock', () => {
  it('maps stream time to when that audio was spoken, from the arrival of the frame that carried it', () => {
    const clock = new ArrivalClock(1000, 4);
    // 20-sample (20 ms) frames arriving at 1000, 1020, …: real time.
    for (let i = 0; i < 10; i++) clock.record(20, 1000 + i * 20);
    // Stream ms 185 is in the frame [180, 200) that arrived at 1180: spoken at 1180 − 15.
    expect(clock.wallTimeOf(185)).toBe(1165);
    expect(clock.wallTimeOf(200)).toBe(1180);
    // Older than the frames kept (4): extrapolated at real time from the oldest kept.
    expect(clock.wallTimeOf(50)).toBe(1180 - 60 - 90);
  });
});

describe('listen: the microphone graph', () => {
  let vad: SileroVad;
  let hello: AudioFrame;
  beforeAll(async () => {
    vad = await SileroVad.load();
    hello = await readWav(new URL('../fixtures/audio/hello-48k.wav', import.meta.url).pathname);
  });
  afterAll(async () => {
    await vad.close();
  });

  /** Feeds 20 ms frames, the clock advancing `msPerFrame` per frame (20 = real time). */
  function hear(msPerFrame: number, limits = {}, stats = { droppedFrames: 0, droppedMs: 0 }) {
    let now = 0;
    const frames = sliceFrames(hello, hello.sampleRate / 50);
    // The fake clock only moves once the VAD has scored every whole window (under a window's
    // bytes wait in the backlog): a VAD that keeps up with real time, however loaded the machine.
    const backlog = new AudioBacklog(1 << 20);
    const audio$ = new Observable<AudioFrame>((s) => {
      void (async () => {
        for (const f of frames) {
          now += msPerFrame;
          s.next(f);
          do await new Promise((r) => setImmediate(r));
          while (backlog.bytes >= 1024);
        }
        s.complete();
      })();
    });
    const events = lastValueFrom(
      listen(audio$, { vad, vadOptions: { minSilenceMs: 550 }, limits, backlog, now: () => now, stats }).pipe(
        toArray(),
      ),
    );
    return { events, stats };
  }

  it('hears one utterance (48 kHz in): its end as spoken, and the decision min_silence_ms later', async () => {
    const events = ((await hear(20).events) as HeardEvent[]).filter(
      (e) => e.type !== 'speech_onset' && e.type !== 'speech_dismissed',
    );
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    const end = events[1] as Extract<HeardEvent, { type: 'speech_end' }>;
    // The clip: ~0.5 s of silence, ~2.8 s of speech, then silence.
    expect(end.speechEndedAt).toBeGreaterThan(2_800);
    expect(end.speechEndedAt).toBeLessThan(3_800);
    expect(end.decidedAt - end.speechEndedAt).toBeGreaterThanOrEqual(550);
    expect(end.decidedAt - end.speechEndedAt).toBeLessThan(550 + 3 * 32 + 20);
    expect(end.audio.length / 16).toBeCloseTo(end.durationMs, 0);
  });

  it('audio faster than real time beyond the allowance is dropped, counted, and reported once', async () => {
    const { events, stats } = hear(2, { burstMs: 1_000 }); // 10x real time, 1 s of allowance
    const heard = (await events) as HeardEvent[];
    expect(heard.filter((e) => e.type === 'overrun')).toEqual([{ type: 'overrun', reason: 'faster_than_real_time' }]);
    // 4.78 s sent in 0.48 s: about 1 s + 0.48 s admitted, the rest dropped.
    expect(stats.droppedMs).toBeGreaterThan(3_000);
    expect(stats.droppedMs).toBeLessThan(3_500);
  });
});
