/**
 * A quiet, deterministic noise floor for synthetic silence: flite and espeak-ng pad with digital
 * zeros, which no microphone line delivers (and which recognisers' energy features handle as a
 * special case). Uniform noise of ±`peak` (16: about -66 dBFS, under the VAD's -60 dBFS floor).
 */
export function noiseInto(out: Int16Array, from: number, to: number, seed: number, peak = 16): void {
  let state = (seed * 2_654_435_761 + 1) >>> 0;
  for (let i = from; i < to; i++) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    out[i] = Math.round(((state / 2 ** 32) * 2 - 1) * peak);
  }
}

/** `speech` with `leadMs` of noise floor before it and `tailMs` after (16 kHz). */
export function padWithNoise(speech: Int16Array, leadMs: number, tailMs: number, seed: number): Int16Array {
  const lead = Math.round(leadMs * 16);
  const out = new Int16Array(lead + speech.length + Math.round(tailMs * 16));
  noiseInto(out, 0, lead, seed);
  out.set(speech, lead);
  noiseInto(out, lead + speech.length, out.length, seed + 1);
  return out;
}
