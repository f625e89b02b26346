import { WhisperFeatureExtractor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { Fft } from '../../src/pipeline/turn/fft.js';
import { LogMelExtractor } from '../../src/pipeline/turn/log-mel.js';
import { SmartTurnFeatures, smartTurnFrames, smartTurnMels } from '../../src/pipeline/turn/smart-turn-features.js';
import { readWav } from '../../src/audio/wav.js';

const fixture = (name: string) => new URL(`../fixtures/audio/${name}`, import.meta.url).pathname;

describe('Fft', () => {
  it.each([400, 16, 45, 7])('matches a direct DFT (size %i)', (n) => {
    const re = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) + (i % 3) * 0.25);
    const im = Float64Array.from({ length: n }, (_, i) => Math.cos(i * 0.11) - 0.5);
    const expected = Array.from({ length: n }, (_, k) => {
      let sr = 0;
      let si = 0;
      for (let t = 0; t < n; t++) {
        const a = (-2 * Math.PI * k * t) / n;
        sr += re[t]! * Math.cos(a) - im[t]! * Math.sin(a);
        si += re[t]! * Math.sin(a) + im[t]! * Math.cos(a);
      }
      return [sr, si];
    });
    new Fft(n).transform(re, im);
    for (let k = 0; k < n; k++) {
      expect(re[k]).toBeCloseTo(expected[k]![0]!, 9);
      expect(im[k]).toBeCloseTo(expected[k]![1]!, 9);
    }
  });

  it('refuses sizes with a large prime factor', () => {
    expect(() => new Fft(22)).toThrow(/prime factor/);
  });
});

describe('Whisper log-mel features', () => {
  /**
   * The reference: @huggingface/transformers' WhisperFeatureExtractor (an independent
   * implementation of the same features) configured as Smart Turn's `chunk_length=8` extractor.
   * It has no `do_normalize`, so both sides get the window already normalised by ours.
   */
  async function reference(window: Float32Array): Promise<Float32Array> {
    const extractor = new WhisperFeatureExtractor({
      feature_size: 80,
      sampling_rate: 16_000,
      hop_length: 160,
      n_fft: 400,
      chunk_length: 8,
      n_samples: 128_000,
      nb_max_frames: 800,
      padding_value: 0,
    });
    const { input_features } = (await extractor(window)) as { input_features: { data: Float32Array; dims: number[] } };
    expect(input_features.dims).toEqual([1, 80, 800]);
    return input_features.data;
  }

  it('match the reference on 8 s of espeak speech, padded at the start as Smart Turn does', async () => {
    const clip = await readWav(fixture('hello.wav'));
    const features = new SmartTurnFeatures().compute(clip.samples);
    expect(features.length).toBe(smartTurnMels * smartTurnFrames);

    // Rebuild the normalised window independently, then compare the log-mel of it.
    const window = new Float32Array(128_000);
    window.set(
      Float32Array.from(clip.samples, (s) => s / 32768),
      128_000 - clip.samples.length,
    );
    const mean = window.reduce((a, b) => a + b, 0) / window.length;
    const sd = Math.sqrt(window.reduce((a, b) => a + (b - mean) ** 2, 0) / window.length + 1e-7);
    const normalised = window.map((x) => (x - mean) / sd);
    const expected = await reference(normalised);

    let worst = 0;
    for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(features[i]! - expected[i]!));
    expect(worst).toBeLessThan(2e-3);
    // Not trivially equal: the features span the whole 8-unit log range ((max − (max − 8)) / 4 = 2).
    expect(Math.max(...expected) - Math.min(...expected)).toBeCloseTo(2, 5);
  });

  it('keep the last 8 s of longer audio', async () => {
    const clip = await readWav(fixture('two-utterances.wav'));
    const long = new Int16Array(200_000);
    for (let i = 0; i < long.length; i++) long[i] = clip.samples[i % clip.samples.length]!;
    const features = new SmartTurnFeatures().compute(long);
    const direct = new SmartTurnFeatures().compute(long.subarray(long.length - 128_000));
    expect(features).toEqual(direct);
  });

  it('give N / hop frames for N samples', () => {
    const mel = new LogMelExtractor();
    const audio = Float32Array.from({ length: 16_000 }, (_, i) => Math.sin((2 * Math.PI * 440 * i) / 16_000));
    const out = mel.compute(audio);
    expect(out.length).toBe(80 * 100);
    // A 440 Hz tone: the loudest mel band of a middle frame is the one around 440 Hz (band ~11).
    let best = 0;
    for (let m = 0; m < 80; m++) if (out[m * 100 + 50]! > out[best * 100 + 50]!) best = m;
    expect(best).toBeGreaterThanOrEqual(9);
    expect(best).toBeLessThanOrEqual(13);
  });
});
