/**
 * The VAD's silence floor (src/pipeline/vad/silence-floor.ts): the real Silero v5 model on real
 * espeak-ng speech (test/fixtures/audio/hello.wav: ~0.5 s of digital silence, ~2.8 s of speech,
 * ~1.4 s of silence), the floor at its default (-60 dBFS) against off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VadEvent } from '../../src/pipeline/vad/events.js';
import type { SilenceFloorDbfs } from '../../src/pipeline/vad/silence-floor.js';
import { vadContextSamples, vadWindowSamples } from '../../src/pipeline/vad/silero-format.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import type { VadSink } from '../../src/pipeline/vad/vad-stream.js';
import { readWav } from '../../src/audio/wav.js';

const rate = 16_000;
const windowMs = (vadWindowSamples / rate) * 1000;
const floor = -60;

let vad: SileroVad;
let hello: Int16Array;
beforeAll(async () => {
  vad = await SileroVad.load();
  hello = (await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname)).samples;
}, 60_000);
afterAll(async () => {
  await vad.close();
});

/** `parts` end to end: clips, and numbers for that many ms of digital silence. */
function join(...parts: (Int16Array | number)[]): Int16Array {
  const arrays = parts.map((p) => (typeof p === 'number' ? new Int16Array((p * rate) / 1000) : p));
  const out = new Int16Array(arrays.reduce((n, a) => n + a.length, 0));
  arrays.reduce((at, a) => (out.set(a, at), at + a.length), 0);
  return out;
}

/** `ms` of white noise at `dbfs` (uniform, RMS against 32768), from a fixed seed. */
function noise(ms: number, dbfs: number): Int16Array {
  const amplitude = 32768 * 10 ** (dbfs / 20) * Math.sqrt(3);
  let seed = 12345;
  return Int16Array.from({ length: (ms * rate) / 1000 }, () => {
    seed = (seed * 48271) % 2147483647; // Park–Miller
    return Math.round((seed / 2147483647) * 2 * amplitude - amplitude);
  });
}

/** A window's level in dBFS. */
function levelDbfs(samples: Int16Array): number {
  const energy = samples.reduce((sum, s) => sum + (s / 32768) ** 2, 0);
  return 10 * Math.log10(energy / samples.length);
}

/** A speech_start or speech_end: its times, and the utterance's length in samples and end reason. */
interface Decision {
  type: 'speech_start' | 'speech_end';
  atMs: number;
  detectedAtMs: number;
  startAtMs?: number;
  samples?: number;
  reason?: string;
}

interface Run {
  decisions: Decision[];
  /** Each window's `inference` event, in order. */
  windows: { probability: number; speaking: boolean }[];
  /** Windows scored without the model, and on it, over the run. */
  skipped: number;
  modelled: number;
}

/** `samples` through a fresh stream in 20 ms frames, as fast as it takes them. */
async function run(samples: Int16Array, silenceFloorDbfs: SilenceFloorDbfs): Promise<Run> {
  const before = { ...vad.stats };
  const result: Run = { decisions: [], windows: [], skipped: 0, modelled: 0 };
  const errors: Error[] = [];
  const stream = vad.stream(
    { silenceFloorDbfs, emitInference: true, maxPendingMs: 30_000 },
    {
      event(e: VadEvent) {
        if (e.type === 'inference') result.windows.push({ probability: e.probability, speaking: e.speaking });
        else if (e.type === 'speech_start') result.decisions.push({ ...e });
        else if (e.type === 'speech_end') {
          const { type, atMs, detectedAtMs, startAtMs, audio, reason } = e;
          result.decisions.push({ type, atMs, detectedAtMs, startAtMs, samples: audio.length, reason });
        }
      },
      error: (err) => errors.push(err),
    },
  );
  for (let at = 0; at < samples.length; at += 320) {
    expect(stream.push({ samples: samples.subarray(at, at + 320), sampleRate: rate })).toBe(true);
  }
  await stream.whenIdle();
  stream.close();
  expect(errors).toEqual([]);
  result.skipped = vad.stats.skipped - before.skipped;
  result.modelled = vad.stats.windows - before.windows;
  return result;
}

describe('VAD silence floor', { timeout: 60_000 }, () => {
  it.each([
    ['hello.wav', () => hello],
    ['hello.wav with 1 s of digital silence before and after', () => join(1000, hello, 1000)],
    ['hello.wav twice', () => join(hello, hello)],
  ])('makes the same speech decisions at -60 dBFS as off: %s', async (_, clip) => {
    const samples = clip();
    const [on, off] = [await run(samples, floor), await run(samples, 'off')];
    expect(off.decisions.length).toBeGreaterThanOrEqual(2);
    expect(on.decisions).toEqual(off.decisions);
    // the silence around the speech skipped the model; every window scored either way
    expect(on.skipped).toBeGreaterThan(0);
    expect(off.skipped).toBe(0);
    expect(on.skipped + on.modelled).toBe(off.modelled);
  });

  it('moves a decision by at most one window where the skipped silence left the RNN state behind', async () => {
    // 2 s of silence between the utterances: the model's state walks on through it, a skipping stream's does not
    const samples = join(1000, hello, 1000, 1000, hello, 1000);
    const [on, off] = [await run(samples, floor), await run(samples, 'off')];
    expect(on.decisions.map((d) => d.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
    expect(off.decisions.map((d) => d.type)).toEqual(on.decisions.map((d) => d.type));
    const times = (d: Decision) => [d.atMs, d.detectedAtMs, d.startAtMs ?? d.atMs];
    on.decisions.forEach((d, i) => {
      const reference = times(off.decisions[i]!);
      times(d).forEach((ms, j) => expect(Math.abs(ms - reference[j]!)).toBeLessThanOrEqual(windowMs));
    });
  });

  it('sends quiet windows to the model inside an utterance and inside a run of speech that may start one', async () => {
    // hello.wav has digital silence between words; add a window of it right after the first speech window
    const first = (await run(hello, floor)).windows.findIndex((w) => w.probability >= 0.5) + 1;
    const samples = join(
      hello.subarray(0, first * vadWindowSamples),
      windowMs,
      hello.subarray(first * vadWindowSamples),
    );
    const on = await run(samples, floor);
    const quiet = (i: number) => levelDbfs(samples.subarray(i * vadWindowSamples, (i + 1) * vadWindowSamples)) < floor;
    const underWay = on.windows.filter(
      (w, i) => quiet(i) && (w.speaking || (on.windows[i - 1]?.probability ?? 0) >= 0.5),
    );
    expect(on.windows[first]).toMatchObject({ speaking: false });
    expect(underWay).toContain(on.windows[first]);
    expect(underWay.filter((w) => w.speaking).length).toBeGreaterThan(0);
    expect(underWay.every((w) => w.probability > 0)).toBe(true);
    // the skipped windows are the ones scored exactly 0, all outside an utterance
    const zeros = on.windows.filter((w) => w.probability === 0);
    expect(zeros).toHaveLength(on.skipped);
    expect(zeros.every((w) => !w.speaking)).toBe(true);
  });

  it('skips digital silence and noise under the floor, not white noise at -40 dBFS', async () => {
    const silence = join(3000);
    const windows = Math.floor(silence.length / vadWindowSamples);
    expect(await run(silence, floor)).toMatchObject({ skipped: windows, modelled: 0, decisions: [] });
    expect(await run(silence, 'off')).toMatchObject({ skipped: 0, modelled: windows, decisions: [] });
    expect(await run(noise(1000, -70), floor)).toMatchObject({ skipped: 31, modelled: 0 });
    expect(await run(noise(1000, -40), floor)).toMatchObject({ skipped: 0, modelled: 31 });
  });

  it('rolls the context of a skipped window as inference does, and leaves the RNN state as it is', async () => {
    const quiet = noise(100, -70).subarray(0, vadWindowSamples);
    const sink: VadSink = { event: () => undefined, error: (err) => expect.unreachable(err.message) };
    const skipping = vad.stream({ silenceFloorDbfs: floor }, sink);
    const modelled = vad.stream({ silenceFloorDbfs: 'off' }, sink);
    for (const stream of [skipping, modelled]) stream.push({ samples: quiet, sampleRate: rate });
    await Promise.all([skipping.whenIdle(), modelled.whenIdle()]);
    const lastSamples = Array.from(quiet.subarray(-vadContextSamples), (s) => s / 32768);
    expect(Array.from(skipping.state.input.subarray(0, vadContextSamples))).toEqual(
      Array.from(Float32Array.from(lastSamples)),
    );
    expect(skipping.state.input.subarray(0, vadContextSamples)).toEqual(
      modelled.state.input.subarray(0, vadContextSamples),
    );
    expect(skipping.state.rnn.every((v) => v === 0)).toBe(true);
    expect(modelled.state.rnn.some((v) => v !== 0)).toBe(true);
    skipping.close();
    modelled.close();
  });

  it.each([
    ['5 s', 5_000],
    ['ten minutes', 600_000],
  ])('clears %s of silence pushed at once within that push, without the batcher', async (_, ms) => {
    let probabilities = 0;
    let processed = 0;
    const stream = vad.stream(
      { emitInference: true, maxPendingMs: ms },
      {
        event: (e) => void (e.type === 'inference' && e.probability === 0 && probabilities++),
        processed: (samples) => void (processed += samples),
        error: (err) => expect.unreachable(err.message),
      },
    );
    const before = { ...vad.stats };
    const samples = (ms * rate) / 1000;
    const windows = Math.floor(samples / vadWindowSamples);
    expect(stream.push({ samples: new Int16Array(samples), sampleRate: rate })).toBe(true);
    // all of it scored before push returned: a loop over the windows, no batch, no recursion
    expect(stream.pending).toBe(samples % vadWindowSamples);
    expect(probabilities).toBe(windows);
    expect(processed).toBe(windows * vadWindowSamples);
    expect(vad.stats.skipped - before.skipped).toBe(windows);
    expect(vad.stats).toMatchObject({ batches: before.batches, windows: before.windows, waiting: 0 });
    await stream.whenIdle();
    stream.close();
  });
});
