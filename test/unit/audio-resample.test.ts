import { firstValueFrom, from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sliceFrames, type AudioFrame } from '../../src/audio/audio-frame.js';
import { resampleTo } from '../../src/audio/resample.js';
import { Resampler } from '../../src/audio/resampler.js';

function sine(hz: number, rate: number, seconds: number, amplitude = 10_000): AudioFrame {
  const samples = Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)),
  );
  return { samples, sampleRate: rate };
}

function concat(frames: AudioFrame[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.samples.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f.samples, at);
    at += f.samples.length;
  }
  return out;
}

/** Signal-to-error ratio (dB) of `actual` against the ideal sine, edges excluded. */
function snrDb(actual: Int16Array, ideal: AudioFrame): number {
  let signal = 0;
  let error = 0;
  for (let i = 200; i < Math.min(actual.length, ideal.samples.length) - 200; i++) {
    signal += ideal.samples[i]! ** 2;
    error += (actual[i]! - ideal.samples[i]!) ** 2;
  }
  return 10 * Math.log10(signal / error);
}

const resample = (audio: AudioFrame, frameSamples: number, rate: number) =>
  lastValueFrom(from(sliceFrames(audio, frameSamples)).pipe(resampleTo(rate), toArray()));

describe('resampleTo', () => {
  it('passes frames through untouched when the rate already matches', async () => {
    const frame = sine(440, 16000, 0.02);
    const out = await firstValueFrom(from([frame]).pipe(resampleTo(16000)));
    expect(out).toBe(frame);
  });

  it.each([
    [48000, 16000, 1000],
    [44100, 16000, 440],
    [24000, 16000, 3000],
    [8000, 16000, 1000],
  ])('resamples %i Hz to %i Hz cleanly (a %i Hz tone)', async (from_, to, hz) => {
    const out = concat(await resample(sine(hz, from_, 1), Math.round(from_ / 50), to));
    expect(Math.abs(out.length - to)).toBeLessThanOrEqual(1);
    expect(snrDb(out, sine(hz, to, 1))).toBeGreaterThan(40);
  });

  it('removes content above the new Nyquist frequency', async () => {
    const out = concat(await resample(sine(12_000, 48000, 1), 960, 16000));
    const peak = out.subarray(200, -200).reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeLessThan(100); // a 10 000 amplitude tone at 12 kHz would alias to 4 kHz
  });

  it('gives the same samples whatever the frame length', async () => {
    const audio = sine(700, 48000, 0.5);
    const reference = concat(await resample(audio, 960, 16000));
    expect(concat(await resample(audio, 4800, 16000))).toEqual(reference);
    expect(concat(await resample(audio, 7, 16000))).toEqual(reference);
  });

  it('errors when the input rate changes mid-stream', async () => {
    const frames = [sine(440, 48000, 0.02), sine(440, 44100, 0.02)];
    await expect(lastValueFrom(from(frames).pipe(resampleTo(16000)))).rejects.toThrow(
      /changed mid-stream from 48000 Hz to 44100 Hz/,
    );
  });

  it('rejects rates out of range', () => {
    expect(() => resampleTo(0)).toThrow(RangeError);
    expect(() => new Resampler(48000, 500)).toThrow(/500 Hz is out of range/);
  });
});
