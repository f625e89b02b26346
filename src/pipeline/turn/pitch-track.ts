/**
 * A pitch track with no trained weights: the normalised cross-correlation of each 40 ms frame
 * with itself one period later (the NCCF of RAPT and YIN's cousin), on audio decimated to 4 kHz
 * (pitch lies far below its 2 kHz band; about 1 ms of CPU per second of audio), every 10 ms. A frame is voiced when its best correlation over 60–400 Hz is strong and it is not
 * much quieter than the loudest frame; its pitch is the lag of that peak, refined by a parabola.
 */

/** One 10 ms step of the track. */
export interface PitchFrame {
  /** Fundamental frequency in Hz; 0 where the frame is unvoiced. */
  f0: number;
  /** Frame energy (mean square, PCM16 units). */
  energy: number;
}

const rate = 4_000;
const hop = rate / 100;
const frameLength = (rate * 40) / 1_000;
const minLag = Math.floor(rate / 400);
const maxLag = Math.ceil(rate / 60);
/** Best correlation a voiced frame reaches at its period. */
const voicedCorrelation = 0.6;
/** A voiced frame is within this factor of the loudest frame's energy (-30 dB). */
const voicedEnergyRatio = 1e-3;

/** Pitch every 10 ms of `audio` (mono PCM16 at `sampleRate`, 8 or 16 kHz). */
export function pitchTrack(audio: Int16Array, sampleRate: number): PitchFrame[] {
  const x = decimated(audio, sampleRate);
  const frames: PitchFrame[] = [];
  for (let start = 0; start + frameLength + maxLag <= x.length; start += hop) {
    let energy = 0;
    for (let i = start; i < start + frameLength; i++) energy += x[i]! * x[i]!;
    frames.push({ f0: 0, energy: energy / frameLength });
  }
  const loudest = frames.reduce((m, f) => Math.max(m, f.energy), 0);
  frames.forEach((frame, k) => {
    if (frame.energy > 0 && frame.energy >= loudest * voicedEnergyRatio) frame.f0 = period(x, k * hop);
  });
  return frames;
}

/** The frame's pitch from its best normalised correlation, or 0 when it is not periodic enough. */
function period(x: Float32Array, start: number): number {
  let e0 = 0;
  for (let i = start; i < start + frameLength; i++) e0 += x[i]! * x[i]!;
  const nccf = new Float32Array(maxLag + 2);
  let best = 0;
  let bestLag = 0;
  // energy of the lagged window, slid one sample at a time
  let el = 0;
  for (let i = start + minLag; i < start + minLag + frameLength; i++) el += x[i]! * x[i]!;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let cross = 0;
    for (let i = start; i < start + frameLength; i++) cross += x[i]! * x[i + lag]!;
    const r = cross / Math.sqrt(e0 * el + 1e-9);
    nccf[lag] = r;
    if (r > best) {
      best = r;
      bestLag = lag;
    }
    el += x[start + lag + frameLength]! ** 2 - x[start + lag]! ** 2;
  }
  if (best < voicedCorrelation) return 0;
  // a period's multiples correlate nearly as well: take the shortest lag close to the best
  for (let lag = minLag; lag < bestLag; lag++) {
    const r = nccf[lag]!;
    if (r > best * 0.9 && r >= nccf[lag - 1]! && r >= nccf[lag + 1]!) {
      bestLag = lag;
      break;
    }
  }
  const a = nccf[bestLag - 1] ?? 0;
  const b = nccf[bestLag]!;
  const c = nccf[bestLag + 1] ?? 0;
  const denominator = a - 2 * b + c;
  const shift = bestLag > minLag && bestLag < maxLag && denominator < 0 ? (0.5 * (a - c)) / denominator : 0;
  return rate / (bestLag + shift);
}

/** `audio` at 4 kHz as floats: each output sample the mean of the input samples it covers (a low-pass enough for pitch). */
function decimated(audio: Int16Array, sampleRate: number): Float32Array {
  const factor = sampleRate / rate;
  if (!Number.isInteger(factor) || factor < 1) throw new Error(`pitch track: ${sampleRate} Hz audio is not supported`);
  const out = new Float32Array(Math.floor(audio.length / factor));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let j = 0; j < factor; j++) sum += audio[i * factor + j]!;
    out[i] = sum / factor;
  }
  return out;
}
