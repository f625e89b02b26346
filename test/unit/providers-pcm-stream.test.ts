import { describe, expect, it } from 'vitest';
import { WavStreamReader } from '../../src/providers/program/wav-stream.js';
import { Pcm16Decoder } from '../../src/audio/pcm16-decoder.js';
import { encodeWav, WavFormatError } from '../../src/audio/wav.js';
import { concatSamples } from '../support/pcm.js';

const ramp = (n: number) => Int16Array.from({ length: n }, (_, i) => ((i * 997) % 65536) - 32768);

function bytesOf(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

describe('Pcm16Decoder', () => {
  it('rebuilds samples split at every odd and even byte boundary', () => {
    const samples = ramp(101);
    const bytes = bytesOf(samples);
    for (const size of [1, 2, 3, 7, 64, 201, 202]) {
      const decoder = new Pcm16Decoder();
      const parts: Int16Array[] = [];
      for (let at = 0; at < bytes.length; at += size) parts.push(decoder.push(bytes.subarray(at, at + size)));
      expect(concatSamples(parts), `chunks of ${size} bytes`).toEqual(samples);
      expect(decoder.pending).toBe(false);
    }
  });

  it('reports a dangling half sample', () => {
    const decoder = new Pcm16Decoder();
    expect(decoder.push(new Uint8Array([1, 2, 3]))).toEqual(new Int16Array([0x0201]));
    expect(decoder.pending).toBe(true);
  });
});

describe('WavStreamReader', () => {
  it('streams the data of a WAV whose sizes are placeholders, as espeak-ng writes on a pipe', () => {
    const samples = ramp(300);
    const wav = encodeWav({ samples, sampleRate: 22_050 });
    wav.writeUInt32LE(0x7ffff024, 4);
    wav.writeUInt32LE(0x7ffff000, 40);
    const reader = new WavStreamReader();
    const parts: Int16Array[] = [];
    for (let at = 0; at < wav.length; at += 13) parts.push(reader.push(wav.subarray(at, at + 13)));
    expect(reader.sampleRate).toBe(22_050);
    expect(concatSamples(parts)).toEqual(samples);
  });

  it('rejects a stream that is not a WAV', () => {
    expect(() => new WavStreamReader().push(new TextEncoder().encode('eSpeak NG text-to-speech: 1.51'))).toThrow(
      WavFormatError,
    );
  });
});
