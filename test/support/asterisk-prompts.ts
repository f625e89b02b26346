import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { parseWav } from '../../src/audio/wav.js';
import { resample } from './pcm.js';

/**
 * People's recorded voices: Asterisk's English prompts (Debian `asterisk-core-sounds-en-wav`,
 * 8 kHz 16-bit WAV, read from the system, never copied into the repository) with their
 * transcripts (`asterisk-core-sounds-en`, lines `name: text`). .ci/run installs both.
 */
export const asteriskSoundsDir = '/usr/share/asterisk/sounds/en';
export const asteriskTranscripts = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';

export interface AsteriskPrompt {
  /** The file's name without `.wav` ("conf-getpin"). */
  name: string;
  /** What is said, as the transcript writes it ("Please enter the conference pin number."). */
  text: string;
  /** 8 kHz PCM16, as recorded. */
  audio: Int16Array;
}

/** The transcripts by prompt name. */
export function asteriskTexts(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const line of gunzipSync(readFileSync(asteriskTranscripts)).toString('utf8').split('\n')) {
    const m = /^([^;:\s]+):\s*(.*)$/.exec(line);
    if (m !== null) texts.set(m[1]!, m[2]!.trim());
  }
  return texts;
}

/**
 * The prompts of the sounds folder (not its subfolders) that say words, in name order: those whose
 * transcript is a sound in brackets (`[this is a simple beep tone]`) or missing are left out.
 */
export function asteriskPrompts(filter: (name: string) => boolean = () => true): AsteriskPrompt[] {
  const texts = asteriskTexts();
  const prompts: AsteriskPrompt[] = [];
  for (const file of readdirSync(asteriskSoundsDir).sort()) {
    const name = file.replace(/\.wav$/, '');
    const text = texts.get(name);
    if (!file.endsWith('.wav') || text === undefined || !/[a-z]/i.test(text.replace(/\[[^\]]*\]/g, ''))) continue;
    if (!filter(name)) continue;
    const wav = parseWav(readFileSync(join(asteriskSoundsDir, file)));
    if (wav.sampleRate !== 8_000) throw new Error(`${file} is at ${wav.sampleRate} Hz, not 8 kHz`);
    prompts.push({ name, text, audio: wav.samples });
  }
  return prompts;
}

/** 8 kHz audio through a phone call's μ-law (encoded and decoded), still at 8 kHz. */
export const throughMulaw = (audio8k: Int16Array): Int16Array => mulawDecode(mulawEncode(audio8k));

/** 8 kHz audio as the pipeline hands it to the recogniser: up to 16 kHz (Parley's resampler). */
export const upTo16k = (audio8k: Int16Array): Int16Array => resample(audio8k, 8_000, 16_000);
