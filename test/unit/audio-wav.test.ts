import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { encodeWav, parseWav, readWav, WavFormatError } from '../../src/audio/wav.js';

const fixture = (name: string) => new URL(`../fixtures/audio/${name}`, import.meta.url).pathname;

/** A canonical header with the given format fields, followed by `dataBytes` zero bytes. */
function header(fields: {
  encoding?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  dataBytes?: number;
}): Buffer {
  const { encoding = 1, channels = 1, rate = 16000, bits = 16, dataBytes = 8 } = fields;
  const wav = encodeWav({ samples: new Int16Array(dataBytes / 2), sampleRate: rate });
  wav.writeUInt16LE(encoding, 20);
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt16LE(bits, 34);
  return wav;
}

describe('wav', () => {
  it('reads the espeak-ng fixtures as 16 kHz and 48 kHz mono PCM16', async () => {
    const hello = await readWav(fixture('hello.wav'));
    const hello48 = await readWav(fixture('hello-48k.wav'));
    expect(hello.sampleRate).toBe(16000);
    expect(hello48.sampleRate).toBe(48000);
    // same clip, so the same duration (within a sample of rounding)
    expect(Math.abs(hello48.samples.length / 3 - hello.samples.length)).toBeLessThanOrEqual(1);
    expect(hello.samples.some((s) => Math.abs(s) > 1000)).toBe(true);
  });

  it('round-trips samples through encodeWav and parseWav', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const back = parseWav(encodeWav({ samples, sampleRate: 24000 }));
    expect(back.sampleRate).toBe(24000);
    expect(Array.from(back.samples)).toEqual(Array.from(samples));
  });

  it('skips unknown chunks and reads data at an odd byte offset', async () => {
    const wav = await readFile(fixture('silence-3s.wav'));
    const list = Buffer.from('LIST\u0003\u0000\u0000\u0000abc\u0000', 'latin1'); // odd size + pad byte
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
    const parsed = parseWav(withList);
    expect(parsed.samples.length).toBe(48000);
  });

  it.each([
    [{ encoding: 3, bits: 32 }, /encoding 3 is not supported/],
    [{ channels: 2 }, /2 channels: only mono/],
    [{ bits: 8 }, /8-bit samples: only 16-bit/],
  ])('rejects %o with a clear error', (fields, message) => {
    expect(() => parseWav(header(fields))).toThrow(WavFormatError);
    expect(() => parseWav(header(fields))).toThrow(message);
  });

  it('rejects bytes that are not a WAV file', () => {
    expect(() => parseWav(Buffer.from('ID3 this is an mp3'))).toThrow(/no RIFF\/WAVE header/);
    expect(() => parseWav(header({}).subarray(0, 30))).toThrow(/fmt chunk is truncated/);
  });
});
