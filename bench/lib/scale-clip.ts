/**
 * What every session of bench/scale.ts says: the voice bench's clip (test/fixtures/audio/hello.wav,
 * ~0.5 s of silence, ~2.8 s of speech, ~1.4 s of silence) repeated, one question per repeat,
 * written to a WAV file for the client process's `talk` job (bench/lib/voice-talk-side.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from '../../src/audio/wav.js';
import { tempDir } from './scale-nodes.js';
import { loadVoiceBenchClip, loopClip } from './voice-bench-audio.js';

const loud = (s: number) => Math.abs(s) > 32; // about -60 dBFS

export interface ScaleClip {
  path: string;
  durationMs: number;
  repeatMs: number;
  /** Per repeat: index of the `frameMs` frame holding its last speech sample. */
  speechEndFrames: number[];
  remove: () => void;
}

export async function writeScaleClip(repeats: number, frameMs: number): Promise<ScaleClip> {
  const clip = await loadVoiceBenchClip();
  const one = clip.samples.length;
  const looped = loopClip(clip, ((one * repeats - 1) * 1000) / clip.sampleRate);
  const lastLoud = clip.samples.findLastIndex(loud);
  const frame = (clip.sampleRate * frameMs) / 1000;
  const dir = tempDir('parley-scale-clip-');
  const path = join(dir.path, 'scale.wav');
  writeFileSync(path, encodeWav(looped));
  return {
    path,
    durationMs: (looped.samples.length * 1000) / clip.sampleRate,
    repeatMs: (one * 1000) / clip.sampleRate,
    speechEndFrames: Array.from({ length: repeats }, (_, r) => Math.floor((r * one + lastLoud) / frame)),
    remove: dir.remove,
  };
}
