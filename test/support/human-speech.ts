import { readFileSync } from 'node:fs';
import { parseWav } from '../../src/audio/wav.js';
import { asteriskSoundsDir, asteriskTexts } from './asterisk-prompts.js';

/**
 * People's recorded voices: Asterisk's English prompts (Debian's `asterisk-core-sounds-en-wav`,
 * 8 kHz mono PCM16, a woman's studio voice as a phone plays it), with the words each one says
 * (`asterisk-core-sounds-en`'s transcript list).
 */

export interface HumanSpeech {
  name: string;
  /** What the prompt says, as the transcript list writes it. */
  text: string;
  /** Trimmed to its speech: from its first to its last 10 ms louder than -40 dBFS. */
  samples: Int16Array;
  sampleRate: number;
}

let transcripts: Map<string, string> | undefined;

/** The prompt `name` (e.g. `cannot-complete-as-dialed`). */
export function humanSpeech(name: string): HumanSpeech {
  transcripts ??= asteriskTexts();
  const text = transcripts.get(name);
  if (text === undefined) throw new Error(`no transcript for the Asterisk prompt ${name}`);
  const wav = parseWav(readFileSync(`${asteriskSoundsDir}/${name}.wav`));
  return { name, text, samples: trimmed(wav.samples, wav.sampleRate), sampleRate: wav.sampleRate };
}

/** The speech of `samples`: from the first to the last 10 ms block louder than -40 dBFS. */
export function trimmed(samples: Int16Array, sampleRate: number): Int16Array {
  const block = sampleRate / 100;
  const loud = (at: number) => {
    let sum = 0;
    for (let j = at; j < Math.min(samples.length, at + block); j++) sum += samples[j]! * samples[j]!;
    return Math.sqrt(sum / block) > 328;
  };
  let start = 0;
  while (start < samples.length && !loud(start)) start += block;
  let end = samples.length - block;
  while (end > start && !loud(end)) end -= block;
  return samples.slice(start, Math.min(samples.length, end + block));
}
