import { execFileSync } from 'node:child_process';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { parseWav } from '../../src/audio/wav.js';
import { resample } from './pcm.js';

const rate = 16_000;
const loud = (s: number) => Math.abs(s) > 32; // about -60 dBFS

/** espeak-ng (en-us, 175 words/min) saying `text` at 16 kHz, its own leading/trailing silence trimmed. */
export function say(text: string): Int16Array {
  const spoken = parseWav(execFileSync('espeak-ng', ['-v', 'en-us', '-s', '175', '--stdout', text]));
  const first = spoken.samples.findIndex(loud);
  const last = spoken.samples.findLastIndex(loud);
  return resample(spoken.samples.slice(first, last + 1), spoken.sampleRate, rate);
}

/**
 * A script of espeak-ng phrases and silences (numbers, in ms) as one 16 kHz clip, e.g.
 * `speech(500, 'My number is five five five', 700, 'one two three', 1500)`. Also returns where
 * each phrase ends (seconds from the start), to tell the utterance heard so far by its length.
 */
export function speech(...parts: (string | number)[]): { audio: AudioFrame; phraseEnds: number[] } {
  const chunks = parts.map((p) => (typeof p === 'number' ? new Int16Array(Math.round((p * rate) / 1000)) : say(p)));
  const samples = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  const phraseEnds: number[] = [];
  let at = 0;
  chunks.forEach((chunk, i) => {
    samples.set(chunk, at);
    at += chunk.length;
    if (typeof parts[i] === 'string') phraseEnds.push(at / rate);
  });
  return { audio: { samples, sampleRate: rate }, phraseEnds };
}
