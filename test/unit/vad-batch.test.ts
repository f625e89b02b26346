/**
 * Batched VAD: the real Silero v5 model on real espeak-ng speech (test/fixtures/audio), run alone
 * and in batches, directly and through the VAD worker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import type { VadEvent } from '../../src/pipeline/vad/events.js';
import {
  newSileroState,
  vadInputSamples,
  vadStateSize,
  vadWindowSamples,
} from '../../src/pipeline/vad/silero-format.js';
import { SileroModel } from '../../src/pipeline/vad/silero-model.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import type { VadStream } from '../../src/pipeline/vad/vad-stream.js';
import { readWav } from '../../src/audio/wav.js';

const clips = ['hello.wav', 'two-utterances.wav', 'interrupt.wav', 'silence-3s.wav'];
const fixture = (name: string) => readWav(new URL(`../fixtures/audio/${name}`, import.meta.url).pathname);
/** Float tolerance between a row run alone and in a batch (different kernels may sum in another order). */
const tolerance = 1e-4;

let audio: AudioFrame[];
beforeAll(async () => {
  audio = await Promise.all(clips.map(fixture));
});

/** Window `w` of `clip` as model input after `context`. */
function writeWindow(clip: AudioFrame, w: number, input: Float32Array, at: number): void {
  const src = clip.samples.subarray(w * vadWindowSamples, (w + 1) * vadWindowSamples);
  for (let i = 0; i < vadWindowSamples; i++) input[at + 64 + i] = src[i]! / 32768;
}

describe('SileroModel: batch independence', () => {
  let model: SileroModel;
  beforeAll(async () => {
    model = await SileroModel.load();
  });
  afterAll(async () => {
    await model.close();
  });

  it('gives each stream the same probabilities alone (B = 1) and in one batch with the others', async () => {
    const windows = Math.min(...audio.map((c) => Math.floor(c.samples.length / vadWindowSamples)));
    // alone: one stream at a time, one window per run
    const alone: number[][] = [];
    for (const clip of audio) {
      const s = newSileroState();
      const probs: number[] = [];
      for (let w = 0; w < windows; w++) {
        writeWindow(clip, w, s.input, 0);
        probs.push((await model.run(s.input, s.rnn, 1))[0]!);
        s.input.copyWithin(0, vadWindowSamples);
      }
      alone.push(probs);
    }
    // batched: every stream's window w in one run, states as [2, B, 128]
    const B = audio.length;
    const input = new Float32Array(B * vadInputSamples);
    const state = new Float32Array(B * vadStateSize);
    const batched: number[][] = audio.map(() => []);
    for (let w = 0; w < windows; w++) {
      audio.forEach((clip, b) => writeWindow(clip, w, input, b * vadInputSamples));
      const probs = await model.run(input, state, B);
      audio.forEach((_, b) => {
        batched[b]!.push(probs[b]!);
        input.copyWithin(b * vadInputSamples, b * vadInputSamples + vadWindowSamples, (b + 1) * vadInputSamples);
      });
    }
    let worst = 0;
    alone.forEach((probs, b) => probs.forEach((p, w) => (worst = Math.max(worst, Math.abs(p - batched[b]![w]!)))));
    expect(worst).toBeLessThan(tolerance);
    // and the clips are not all alike: speech is found in the speech clips, not in the silence
    expect(Math.max(...alone[0]!)).toBeGreaterThan(0.9);
    expect(Math.max(...alone[3]!)).toBeLessThan(0.5);
  });

  it('refuses buffers that do not match the batch size', async () => {
    await expect(model.run(new Float32Array(vadInputSamples), new Float32Array(vadStateSize), 2)).rejects.toThrow(
      RangeError,
    );
  });
});

describe('SileroVad: streams batched on the VAD worker', { timeout: 60_000 }, () => {
  let vad: SileroVad;
  beforeAll(async () => {
    // floor off: these tests are about windows on the model, silence included (vad-silence-floor.test.ts: the floor)
    vad = await SileroVad.load({ silenceFloorDbfs: 'off' });
  }, 60_000);
  afterAll(async () => {
    await vad.close();
  });

  /** A stream that records its window probabilities and events. */
  function open(): { stream: VadStream; probs: number[]; events: VadEvent[]; errors: Error[] } {
    const probs: number[] = [];
    const events: VadEvent[] = [];
    const errors: Error[] = [];
    const stream = vad.stream(
      { emitInference: true, maxPendingMs: 20_000 },
      {
        event(e) {
          if (e.type === 'inference') probs.push(e.probability);
          else events.push(e);
        },
        error: (err) => errors.push(err),
      },
    );
    return { stream, probs, events, errors };
  }

  function pushAll(stream: VadStream, clip: AudioFrame): void {
    for (let at = 0; at < clip.samples.length; at += 320) {
      expect(stream.push({ samples: clip.samples.subarray(at, at + 320), sampleRate: 16000 })).toBe(true);
    }
  }

  async function alone(clip: AudioFrame): Promise<number[]> {
    const s = open();
    pushAll(s.stream, clip);
    await s.stream.whenIdle();
    s.stream.close();
    return s.probs;
  }

  const near = (a: number[], b: number[]) => {
    expect(a).toHaveLength(b.length);
    return Math.max(0, ...a.map((p, i) => Math.abs(p - b[i]!)));
  };

  it('runs every stream due together as one batch, each with the probabilities it has alone', async () => {
    const reference: number[][] = [];
    for (const clip of audio) reference.push(await alone(clip));
    const before = { ...vad.stats };
    const streams = audio.map(() => open());
    streams.forEach((s, i) => pushAll(s.stream, audio[i]!));
    await Promise.all(streams.map((s) => s.stream.whenIdle()));
    streams.forEach((s, i) => expect(near(s.probs, reference[i]!)).toBeLessThan(tolerance));
    // four streams with their audio all there: batches of four (until the shorter clips run out)
    const windows = vad.stats.windows - before.windows;
    const batches = vad.stats.batches - before.batches;
    expect(windows).toBe(reference.reduce((n, r) => n + r.length, 0));
    expect(vad.stats.largestBatch).toBe(4);
    expect(batches).toBeLessThanOrEqual(Math.max(...reference.map((r) => r.length)) + 1);
    streams.forEach((s) => s.stream.close());
  });

  it('keeps the other streams right when one leaves and another joins while a batch is running', async () => {
    const [hello, two, interrupt] = audio as [AudioFrame, AudioFrame, AudioFrame];
    const refHello = await alone(hello);
    const refInterrupt = await alone(interrupt);
    const a = open();
    const b = open();
    pushAll(a.stream, hello);
    pushAll(b.stream, two);
    // wait until a batch holding both is on the worker, and some windows are done
    while (!(vad.batchInFlight && a.probs.length >= 10)) await new Promise((r) => setImmediate(r));
    const bScored = b.probs.length;
    b.stream.close(); // leaves mid-batch: its running row is answered and ignored
    const c = open(); // joins mid-batch: its first window goes in the next batch
    pushAll(c.stream, interrupt);
    await Promise.all([a.stream.whenIdle(), c.stream.whenIdle()]);
    expect(near(a.probs, refHello)).toBeLessThan(tolerance);
    expect(near(c.probs, refInterrupt)).toBeLessThan(tolerance);
    expect(b.probs).toHaveLength(bScored);
    expect(b.stream.push({ samples: new Int16Array(320), sampleRate: 16000 })).toBe(false);
    expect([a, b, c].flatMap((s) => s.errors)).toEqual([]);
    a.stream.close();
    c.stream.close();
  });

  it('a stream whose sink throws fails alone: the others in its batch, and later batches, go on', async () => {
    const [hello, two] = audio as [AudioFrame, AudioFrame];
    const refTwo = await alone(two);
    const errors: Error[] = [];
    const bad = vad.stream(
      { emitInference: true, maxPendingMs: 20_000 },
      {
        event: () => {
          throw new Error('sink bug');
        },
        error: (err) => errors.push(err),
      },
    );
    const good = open();
    pushAll(bad, hello);
    pushAll(good.stream, two);
    await good.stream.whenIdle();
    expect(near(good.probs, refTwo)).toBeLessThan(tolerance);
    expect(errors.map((e) => e.message)).toEqual(['sink bug']);
    expect(good.errors).toEqual([]);
    good.stream.close();
  });

  it.runIf(process.platform === 'linux')('runs inference on a thread niced below the event loop', () => {
    const loopNice = getPriority();
    expect(vad.workerNice).toBe(Math.min(19, loopNice + 10));
    // nice is per thread on Linux: the worker's thread has it, this (the event loop's) keeps its own
    const nices = readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    expect(nices).toContain(vad.workerNice);
    expect(getPriority()).toBe(loopNice);
  });

  it('refuses audio past maxPendingMs instead of queueing it (the model is behind)', () => {
    const stream = vad.stream({ maxPendingMs: 100 }, { event: () => undefined, error: () => undefined });
    const frame = { samples: new Int16Array(320), sampleRate: 16000 }; // 20 ms
    const admitted = Array.from({ length: 8 }, () => stream.push(frame));
    // synchronously nothing is scored: 100 ms = five frames fit, the rest are refused
    expect(admitted).toEqual([true, true, true, true, true, false, false, false]);
    expect(stream.pending).toBe(5 * 320);
    stream.close();
  });

  it('sizes each stream by its settings', () => {
    const sink = { event: () => undefined, error: () => undefined };
    const short = vad.stream({ maxUtteranceMs: 10_000, prefixPaddingMs: 300, maxPendingMs: 1_000 }, sink);
    const long = vad.stream({ maxUtteranceMs: 60_000, prefixPaddingMs: 300, maxPendingMs: 1_000 }, sink);
    expect(short.capacity).toBe(16 * (300 + 10_000 + 1_000) + vadWindowSamples);
    expect(long.capacity - short.capacity).toBe(16 * 50_000);
    short.close();
    long.close();
  });
});

describe(
  'VAD batch policy: a full batch goes at once, a partial one waits for the interval',
  { timeout: 60_000 },
  () => {
    let vad: SileroVad;
    beforeAll(async () => {
      // an interval no test waits out: only a full batch (4 windows) or the first batch can start
      vad = await SileroVad.load({ silenceFloorDbfs: 'off', batchIntervalMs: 600_000, fullBatch: 4 });
    }, 60_000);
    afterAll(async () => {
      await vad.close();
    });

    it('holds windows below fullBatch until the interval, and runs them the moment the batch is full', async () => {
      const window = { samples: audio[0]!.samples.subarray(0, vadWindowSamples), sampleRate: 16000 };
      const scored: number[] = [];
      const streams = Array.from({ length: 4 }, (_, i) =>
        vad.stream(
          { emitInference: true },
          { event: (e) => void (e.type === 'inference' && scored.push(i)), error: () => undefined },
        ),
      );
      // the first batch ever starts at once (no batch before it to wait after)
      streams[0]!.push(window);
      await streams[0]!.whenIdle();
      expect(scored).toEqual([0]);
      const before = vad.stats.batches;
      for (const stream of streams.slice(0, 3)) stream.push(window);
      await new Promise((r) => setTimeout(r, 300));
      expect(vad.stats.batches).toBe(before); // three waiting, the interval far off: nothing ran
      expect(vad.stats.waiting).toBe(3);
      streams[3]!.push(window); // the fourth fills the batch
      await Promise.all(streams.map((s) => s.whenIdle()));
      expect(vad.stats.batches).toBe(before + 1);
      expect(scored.slice(1).sort()).toEqual([0, 1, 2, 3]);
      for (const stream of streams) stream.close();
    });

    it('never holds a batch that cannot grow: a stream alone catches up window after window', async () => {
      const before = vad.stats.batches;
      const lone = vad.stream({}, { event: () => undefined, error: () => undefined });
      lone.push({ samples: audio[0]!.samples.subarray(0, 5 * vadWindowSamples), sampleRate: 16000 });
      await lone.whenIdle(); // five batches of one, none waiting for the 10-minute interval
      expect(vad.stats.batches - before).toBe(5);
      lone.close();
    });
  },
);
