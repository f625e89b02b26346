/** PCM16 helpers shared by the Node and browser sides (no per-frame allocation beyond the output). */

/** Float samples in [-1, 1] → PCM16 (clamped). */
export function floatToPcm16(input: Float32Array, output = new Int16Array(input.length)): Int16Array {
  for (let i = 0; i < input.length; i++) {
    const s = Math.max(-1, Math.min(1, input[i]!));
    output[i] = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
  }
  return output;
}

/** PCM16 → float samples in [-1, 1). */
export function pcm16ToFloat(input: Int16Array, output = new Float32Array(input.length)): Float32Array {
  for (let i = 0; i < input.length; i++) output[i] = input[i]! / 0x8000;
  return output;
}

/** Root mean square of a PCM16 frame, 0..1. */
export function rms(frame: Int16Array): number {
  if (frame.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < frame.length; i++) {
    const s = frame[i]! / 0x8000;
    sum += s * s;
  }
  return Math.sqrt(sum / frame.length);
}
