import { Resampler } from '../../src/audio/resampler.js';

/** Whole PCM16 clips, as the tests and benches build them: joined, and resampled. */

/** The parts one after another, in one array. */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A whole clip from one rate to another (Parley's resampler, flushed). */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  const resampler = new Resampler(from, to);
  return concatSamples([resampler.push(samples), resampler.flush()]);
}
