import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav } from '../../src/audio/wav.js';
import { concatSamples } from './pcm.js';

const loud = (s: number) => Math.abs(s) > 32; // about -60 dBFS

/** flite voices that speak at 16 kHz (the pipeline's rate). */
export type FliteVoice = 'slt' | 'rms' | 'awb' | 'kal16';

/**
 * Debian's flite saying `text` with `voice` at 16 kHz, its own leading/trailing silence trimmed:
 * real speech for the recogniser (the text goes in a file, never argv, as the provider does).
 */
export function fliteSay(text: string, voice: FliteVoice = 'slt'): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'parley-flite-'));
  try {
    const wav = join(dir, 'out.wav');
    const input = join(dir, 'text.txt');
    writeFileSync(input, text);
    execFileSync('flite', ['-voice', voice, '-f', input, '-o', wav]);
    const spoken = parseWav(readFileSync(wav));
    if (spoken.sampleRate !== 16_000) throw new Error(`flite ${voice} spoke at ${spoken.sampleRate} Hz`);
    const first = spoken.samples.findIndex(loud);
    const last = spoken.samples.findLastIndex(loud);
    return spoken.samples.slice(first, last + 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Phrases and silences (ms) as one 16 kHz clip, e.g. `fliteScript(300, 'hello there', 1200)`. */
export function fliteScript(voice: FliteVoice, ...parts: (string | number)[]): Int16Array {
  const chunks = parts.map((p) => (typeof p === 'number' ? new Int16Array(Math.round(p * 16)) : fliteSay(p, voice)));
  return concatSamples(chunks);
}
