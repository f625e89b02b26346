/**
 * The canonical 44-byte WAV header of a recording (PCM16, one or two channels) and the repair of
 * one whose sizes lag its data: a recording is written as it happens and its header rewritten
 * (in one write) after every flush, so a process killed mid-call leaves a header at most one
 * flush behind the data; `repairWavSizes` sets its sizes from the file's length.
 */
import { open } from 'node:fs/promises';

export const wavHeaderBytes = 44;

/** The header of `dataBytes` of interleaved PCM16 at `sampleRate` with `channels` channels. */
export function wavHeader(channels: number, sampleRate: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(wavHeaderBytes);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/**
 * Sets the header's sizes of a recording at `path` from its length (whole sample frames only).
 * True when they were wrong and were fixed; false when they were right or the file is not a
 * recording this module wrote (left alone).
 */
export async function repairWavSizes(path: string): Promise<boolean> {
  const file = await open(path, 'r+');
  try {
    const header = Buffer.alloc(wavHeaderBytes);
    const { bytesRead } = await file.read(header, 0, wavHeaderBytes, 0);
    if (
      bytesRead < wavHeaderBytes ||
      header.toString('ascii', 0, 4) !== 'RIFF' ||
      header.toString('ascii', 36, 40) !== 'data'
    )
      return false;
    const blockAlign = header.readUInt16LE(32);
    if (blockAlign === 0) return false;
    const { size } = await file.stat();
    const dataBytes = size - wavHeaderBytes - ((size - wavHeaderBytes) % blockAlign);
    if (header.readUInt32LE(40) === dataBytes && header.readUInt32LE(4) === 36 + dataBytes) return false;
    header.writeUInt32LE(36 + dataBytes, 4);
    header.writeUInt32LE(dataBytes, 40);
    await file.write(header, 0, wavHeaderBytes, 0);
    return true;
  } finally {
    await file.close();
  }
}
