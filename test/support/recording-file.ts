import { readFile } from 'node:fs/promises';

/** A recording as read back: the header's fields and each channel's samples (of the whole file). */
export interface RecordingFile {
  channels: number;
  sampleRate: number;
  /** The data size the header declares. */
  declaredBytes: number;
  /** The data bytes the file holds. */
  fileDataBytes: number;
  /** Samples per channel, deinterleaved (channel 0 the caller, 1 the agent). */
  channel: Int16Array[];
}

/** Reads a recording's canonical 44-byte header and splits its data by channel, checking the header's constants. */
export async function readRecording(path: string): Promise<RecordingFile> {
  const bytes = await readFile(path);
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not RIFF/WAVE');
  if (bytes.toString('ascii', 12, 16) !== 'fmt ' || bytes.readUInt16LE(20) !== 1 || bytes.readUInt16LE(34) !== 16)
    throw new Error('not PCM16');
  if (bytes.toString('ascii', 36, 40) !== 'data') throw new Error('no data chunk at 36');
  const channels = bytes.readUInt16LE(22);
  const declaredBytes = bytes.readUInt32LE(40);
  if (bytes.readUInt32LE(4) !== 36 + declaredBytes) throw new Error('RIFF size disagrees with the data size');
  const fileDataBytes = bytes.length - 44;
  const frames = Math.floor(fileDataBytes / (2 * channels));
  const channel = Array.from({ length: channels }, () => new Int16Array(frames));
  for (let i = 0; i < frames; i++)
    for (let c = 0; c < channels; c++) channel[c]![i] = bytes.readInt16LE(44 + (i * channels + c) * 2);
  return { channels, sampleRate: bytes.readUInt32LE(24), declaredBytes, fileDataBytes, channel };
}

/** Index of the first sample that is not 0 at or after `from`, or -1. */
export function firstSound(samples: Int16Array, from = 0): number {
  for (let i = from; i < samples.length; i++) if (samples[i] !== 0) return i;
  return -1;
}

/** Index of the last sample that is not 0, or -1. */
export function lastSound(samples: Int16Array): number {
  for (let i = samples.length - 1; i >= 0; i--) if (samples[i] !== 0) return i;
  return -1;
}

/** The samples with every 0 taken out (silence the recorder filled in between frames that hold none). */
export function withoutZeros(samples: Int16Array): Int16Array {
  return samples.filter((s) => s !== 0);
}
