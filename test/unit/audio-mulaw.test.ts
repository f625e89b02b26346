import { describe, expect, it } from 'vitest';
import { mulawDecode, mulawDecodeSample, mulawEncode, mulawEncodeSample } from '../../src/audio/mulaw.js';

describe('G.711 μ-law', () => {
  it('decodes the reference values (ITU-T G.711, Sun g711.c)', () => {
    expect(mulawDecodeSample(0xff)).toBe(0);
    expect(mulawDecodeSample(0x7f)).toBe(0);
    expect(mulawDecodeSample(0xfe)).toBe(8);
    expect(mulawDecodeSample(0x7e)).toBe(-8);
    expect(mulawDecodeSample(0xf0)).toBe(120);
    expect(mulawDecodeSample(0xef)).toBe(132);
    expect(mulawDecodeSample(0x8f)).toBe(16764);
    expect(mulawDecodeSample(0x80)).toBe(32124);
    expect(mulawDecodeSample(0x00)).toBe(-32124);
  });

  it('encodes the reference values, clipping at full scale', () => {
    expect(mulawEncodeSample(0)).toBe(0xff);
    expect(mulawEncodeSample(-1)).toBe(0x7f);
    expect(mulawEncodeSample(100)).toBe(0xf2);
    expect(mulawEncodeSample(-100)).toBe(0x72);
    expect(mulawEncodeSample(32124)).toBe(0x80);
    expect(mulawEncodeSample(32767)).toBe(0x80);
    expect(mulawEncodeSample(-32768)).toBe(0x00);
  });

  it('encodes every decoded value back to its byte (but negative zero, which is zero)', () => {
    for (let byte = 0; byte < 256; byte++) {
      if (byte === 0x7f) continue;
      expect(mulawEncodeSample(mulawDecodeSample(byte))).toBe(byte);
    }
  });

  it('keeps a 20 ms 8 kHz tone within the codec’s error (about 3% of the sample)', () => {
    const tone = new Int16Array(160).map((_, i) => Math.round(12_000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
    const back = mulawDecode(mulawEncode(tone));
    expect(back).toHaveLength(160);
    for (let i = 0; i < tone.length; i++)
      expect(Math.abs(back[i]! - tone[i]!)).toBeLessThanOrEqual(Math.abs(tone[i]!) * 0.035 + 8);
  });

  it('writes into given buffers', () => {
    const out = new Int16Array(4);
    expect(mulawDecode(Uint8Array.of(0xff, 0x80), out)).toBe(out);
    expect([...out]).toEqual([0, 32124, 0, 0]);
  });
});
