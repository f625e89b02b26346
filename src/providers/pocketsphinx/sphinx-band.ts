import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * The channel an utterance came over: a phone line (captured at 8 kHz or less: μ-law, 300-3400 Hz)
 * or anything wider (a browser, LiveKit). It picks the decoder, because a decoder's cepstral mean
 * normalisation belongs to one channel (below).
 */
export type SphinxBand = 'phone' | 'wide';

/** The band of audio captured at `capturedRate` Hz (undefined: as the pipeline hears it, wide). */
export function bandOf(capturedRate: number | undefined): SphinxBand {
  return capturedRate !== undefined && capturedRate <= 8_000 ? 'phone' : 'wide';
}

/**
 * Where a phone-line decoder starts its cepstral mean. PocketSphinx subtracts from each frame's
 * cepstrum a running mean that starts at the model's `-cmninit` (its `feat.params`, wide-band
 * speech) and moves towards the audio heard only at the end of each utterance, by about a sixth
 * for a second of speech. A phone line's mean is far from it (c1 +37 against -5, c3 +49 against
 * +5: the band edges tilt the spectrum), so a fresh decoder heard a caller's first utterance
 * against the wrong mean: under a grammar, no phrase or a wrong one (25 of 48 of flite's phrases,
 * 5 of 12 of espeak-ng's), every one heard once the decoder had adapted. This is the mean the
 * decoder settles on over flite's four voices through μ-law 8 kHz; started there, 48 of 48 and
 * 11 of 12 were heard at once, while wide-band speech started there lost 6 of 48 (so each band
 * has its own decoders).
 */
export const phoneCmnInit = '46.85,36.96,-27.64,48.98,-15.30,-0.12,16.17,-19.52,6.82,-10.88,3.77,6.21,-2.97';

/**
 * The path of a copy of the acoustic model's `feat.params` with the phone line's starting mean:
 * pocketsphinx reads `-cmninit` from that file over the command line. Written once (its name is
 * its content's hash) under the system's temporary folder.
 */
export function phoneFeatParams(hmmDir: string): string {
  const model = readFileSync(join(hmmDir, 'feat.params'), 'utf8');
  const kept = model
    .split('\n')
    .filter((line) => !line.startsWith('-cmninit'))
    .join('\n');
  const params = `${kept.trimEnd()}\n-cmninit ${phoneCmnInit}\n`;
  const dir = join(tmpdir(), 'parley-pocketsphinx');
  const path = join(dir, `feat-${createHash('sha256').update(params).digest('hex').slice(0, 16)}.params`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}-${threadId}`;
  writeFileSync(partial, params);
  renameSync(partial, path); // whole or absent: another thread may be writing the same file
  return path;
}
