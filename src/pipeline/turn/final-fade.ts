import type { PitchFrame } from './pitch-track.js';

/**
 * How the voice ends: a speaker who has finished lets it fade over the last syllable (the level
 * falls through most of its range before the speech is over); one who stops mid-sentence, to
 * think or to breathe, stops at full strength. Read from the pitch track's frame energies (10 ms,
 * the 0–2 kHz band), with no trained weights.
 */
export interface FinalFade {
  /** How far the level falls over the last `fadeWindowMs` of speech, in dB. */
  fallDb: number;
  /** The range it could fall: from the speech's loud level to where speech ends, in dB. */
  rangeDb: number;
}

/** Frames at the end of the speech that reach past it (a pitch frame is 40 ms long, one every 10 ms). */
const straddleFrames = 4;
/** The stretch before the end of speech the fall is read over. */
const fadeWindowFrames = 20;
/** Speech ends where the level sinks this far below its loud level (the 90th percentile)… */
const speechRangeDb = 30;
/** …or this close to the noise floor (the 10th percentile), whichever is higher. */
const aboveNoiseDb = 10;
/** Less range than this (a noisy line) tells nothing. */
const minRangeDb = 12;
/** A voice that fades falls through at least this share of the range. */
export const minFadeShare = 0.25;

/**
 * The fade at the end of the speech in `frames` (the utterance's pitch track, silence after it
 * allowed); null when the line is too noisy to tell, nothing is loud enough, or the audio ends
 * before the speech does (the voice is still loud at its last frame).
 */
export function finalFade(frames: readonly PitchFrame[]): FinalFade | null {
  const db = frames.map((f) => (f.energy > 0 ? 10 * Math.log10(f.energy) : -Infinity));
  const sorted = [...db].sort((a, b) => a - b);
  const loud = sorted[Math.floor(sorted.length * 0.9)];
  if (loud === undefined || !Number.isFinite(loud)) return null;
  const floor = sorted[Math.floor(sorted.length * 0.1)]!;
  const level = Math.max(loud - speechRangeDb, floor + aboveNoiseDb);
  const rangeDb = loud - level;
  if (rangeDb < minRangeDb) return null;
  // the speech must end inside the audio: a voice still loud at its last frame may fade after it
  if (db.at(-1)! >= level) return null;
  let end = db.length - 1;
  while (end >= 0 && db[end]! < level) end--;
  // the last frames straddle the end (a 40 ms frame every 10 ms): the level is read where a frame still lies within the speech
  const last = end - straddleFrames;
  if (last < 2) return null;
  const peak = Math.max(...db.slice(Math.max(0, last - fadeWindowFrames), last + 1));
  const tail = (db[last]! + db[last - 1]! + db[last - 2]!) / 3;
  return { fallDb: peak - tail, rangeDb };
}

/** Whether `fade` says the voice faded out; null (no evidence) counts as faded. */
export function fadedOut(fade: FinalFade | null): boolean {
  return fade === null || fade.fallDb >= minFadeShare * fade.rangeDb;
}
