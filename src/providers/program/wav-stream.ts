import { parseWav, WavFormatError } from '../../audio/wav.js';
import { Pcm16Decoder } from '../../audio/pcm16-decoder.js';

/** Headers longer than this are not a WAV stream worth waiting for. */
const maxHeaderBytes = 64 * 1024;

/**
 * Reads a PCM16 mono WAV as it is written to a pipe. espeak-ng streaming to stdout cannot seek back
 * to fix its RIFF and data sizes, so it writes placeholders (0x7ffff000): the sizes are ignored and
 * everything after the data chunk's header is audio until the stream ends.
 */
export class WavStreamReader {
  private header: Buffer[] = [];
  private headerBytes = 0;
  private readonly pcm = new Pcm16Decoder();
  /** Known once the header up to the data chunk has arrived. */
  sampleRate: number | undefined;

  /** Samples completed by `bytes` (empty while the header is still arriving). */
  push(bytes: Uint8Array): Int16Array {
    if (this.sampleRate !== undefined) return this.pcm.push(bytes);
    this.header.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.headerBytes += bytes.length;
    const head = this.header.length === 1 ? this.header[0]! : Buffer.concat(this.header);
    this.header = [head];
    const dataAt = dataOffset(head);
    if (dataAt === undefined) {
      if (this.headerBytes > maxHeaderBytes)
        throw new WavFormatError(`no WAV data chunk in the first ${maxHeaderBytes} bytes`);
      return new Int16Array(0);
    }
    // parseWav validates the fmt chunk (PCM16 mono) on the header alone: its data chunk is empty.
    this.sampleRate = parseWav(head.subarray(0, dataAt)).sampleRate;
    this.header = [];
    return this.pcm.push(head.subarray(dataAt));
  }
}

/** Byte offset of the data chunk's body, or undefined while the header is incomplete. */
function dataOffset(bytes: Buffer): number | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a WAV stream: no RIFF/WAVE header');
  }
  let at = 12;
  while (at + 8 <= bytes.length) {
    if (bytes.toString('latin1', at, at + 4) === 'data') return at + 8;
    const size = bytes.readUInt32LE(at + 4);
    at += 8 + size + (size & 1);
  }
  return undefined;
}
