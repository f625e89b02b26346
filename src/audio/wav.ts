/**
 * WAV (RIFF) reading and writing for mono PCM16: the format of the test fixtures, the benches'
 * input and the espeak-ng TTS provider's output. Anything else (other encodings, bit depths, more
 * than one channel) is rejected with a `WavFormatError` that says what was found.
 */
import { readFile } from 'node:fs/promises';
import type { AudioFrame } from './audio-frame.js';

export class WavFormatError extends Error {
  override readonly name = 'WavFormatError';
}

const wavePcm = 1;
const waveExtensible = 0xfffe;

/**
 * Parses a RIFF/WAVE file holding PCM16 mono audio. The returned samples are a copy aligned for
 * Int16Array (WAV data may start at an odd offset), made once per file.
 * Accepts WAVE_FORMAT_EXTENSIBLE when its sub-format is PCM. Unknown chunks (LIST, fact, …) are
 * skipped; a data chunk whose declared size runs past the end (streamed writers such as espeak-ng
 * on a pipe write 0 or 0xFFFFFFFF) is read to the end of the buffer.
 */
export function parseWav(bytes: Uint8Array): AudioFrame {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') {
    throw new WavFormatError('not a WAV file: no RIFF/WAVE header');
  }
  let format: { sampleRate: number } | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new WavFormatError('WAV fmt chunk is truncated');
      let encoding = view.getUint16(body, true);
      const channels = view.getUint16(body + 2, true);
      const sampleRate = view.getUint32(body + 4, true);
      const bits = view.getUint16(body + 14, true);
      if (encoding === waveExtensible && size >= 40 && body + 26 <= bytes.length)
        encoding = view.getUint16(body + 24, true);
      if (encoding !== wavePcm) throw new WavFormatError(`WAV encoding ${encoding} is not supported: only PCM (1)`);
      if (channels !== 1) throw new WavFormatError(`WAV has ${channels} channels: only mono is supported`);
      if (bits !== 16) throw new WavFormatError(`WAV has ${bits}-bit samples: only 16-bit is supported`);
      if (sampleRate < 1000 || sampleRate > 192_000)
        throw new WavFormatError(`WAV sample rate ${sampleRate} Hz is out of range`);
      format = { sampleRate };
    } else if (id === 'data') {
      if (!format) throw new WavFormatError('WAV data chunk comes before its fmt chunk');
      const end = size === 0 || body + size > bytes.length ? bytes.length : body + size;
      const byteCount = (end - body) & ~1;
      const samples = new Int16Array(byteCount / 2);
      new Uint8Array(samples.buffer).set(bytes.subarray(body, body + byteCount));
      return { samples, sampleRate: format.sampleRate };
    }
    at = body + size + (size & 1);
  }
  throw new WavFormatError(format ? 'WAV has no data chunk' : 'WAV has no fmt chunk');
}

/** Reads and parses a WAV file from disk. */
export async function readWav(path: string): Promise<AudioFrame> {
  return parseWav(await readFile(path));
}

/** Encodes mono PCM16 as a canonical 44-byte-header WAV file. */
export function encodeWav(audio: AudioFrame): Buffer {
  const dataBytes = audio.samples.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(wavePcm, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(audio.sampleRate, 24);
  out.writeUInt32LE(audio.sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  Buffer.from(audio.samples.buffer, audio.samples.byteOffset, dataBytes).copy(out, 44);
  return out;
}
