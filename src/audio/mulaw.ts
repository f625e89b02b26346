/**
 * G.711 μ-law (ITU-T G.711, North American / Japanese telephony): 8-bit logarithmic samples, the
 * audio of Twilio Media Streams (`audio/x-mulaw`, 8000 Hz, mono). Decoding is a 256-entry table;
 * encoding the classic bias-and-segment computation (bias 0x84, clip 32635), bit-exact with the
 * reference implementation (Sun's g711.c) and with what carriers send.
 */

const bias = 0x84;
const clip = 32635;

/** The linear value of each μ-law byte. */
const decodeTable: Int16Array = (() => {
  const table = new Int16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    const u = ~byte & 0xff;
    const exponent = (u >> 4) & 0x07;
    const mantissa = u & 0x0f;
    const magnitude = (((mantissa << 3) + bias) << exponent) - bias;
    table[byte] = u & 0x80 ? -magnitude : magnitude;
  }
  return table;
})();

/** The μ-law byte of one linear 16-bit sample. */
export function mulawEncodeSample(sample: number): number {
  let s = sample;
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > clip) s = clip;
  s += bias;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** The linear 16-bit sample of one μ-law byte. */
export function mulawDecodeSample(byte: number): number {
  return decodeTable[byte & 0xff]!;
}

/** μ-law bytes to PCM16 samples (one sample per byte), into `out` when given (its length at least `bytes.length`). */
export function mulawDecode(bytes: Uint8Array, out: Int16Array = new Int16Array(bytes.length)): Int16Array {
  for (let i = 0; i < bytes.length; i++) out[i] = decodeTable[bytes[i]!]!;
  return out;
}

/** PCM16 samples to μ-law bytes, into `out` when given (its length at least `samples.length`). */
export function mulawEncode(samples: Int16Array, out: Uint8Array = new Uint8Array(samples.length)): Uint8Array {
  for (let i = 0; i < samples.length; i++) out[i] = mulawEncodeSample(samples[i]!);
  return out;
}
