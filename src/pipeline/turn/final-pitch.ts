import { pitchTrack, type PitchFrame } from './pitch-track.js';

/** The pitch an utterance ends on, beside its own middle. */
export interface FinalPitch {
  /** Median pitch (Hz) of the last voiced stretch: its last 120 ms of voicing within 450 ms. */
  endHz: number;
  /** Median pitch (Hz) of the utterance's voiced frames. */
  medianHz: number;
}

/** Voiced 10 ms frames an utterance needs for its pitch to say anything. */
const minVoicedFrames = 10;

/** The end of an utterance the pitch is read from: its final contour and the middle it is compared with. */
const windowMs = 2_000;

/**
 * The pitch track of the end of `audio` (mono PCM16 at a multiple of 4 kHz: its last 2 s) that the
 * final pitch and the fade are read from.
 */
export function endTrack(audio: Int16Array, sampleRate: number): PitchFrame[] {
  return pitchTrack(audio.subarray(Math.max(0, audio.length - (sampleRate * windowMs) / 1_000)), sampleRate);
}

/**
 * Where the utterance of `track` (from `endTrack`) ends in pitch; null when too little of it is
 * voiced. `speaker` learns the voiced frames.
 */
export function pitchOfTrack(track: readonly PitchFrame[], speaker?: SpeakerPitch): FinalPitch | null {
  const voiced: [frame: number, hz: number][] = [];
  track.forEach((f, k) => {
    if (f.f0 > 0) voiced.push([k, f.f0]);
  });
  speaker?.add(voiced.map(([, hz]) => hz));
  if (voiced.length < minVoicedFrames) return null;
  const last = voiced.at(-1)![0];
  const end = voiced.filter(([k]) => k >= last - 45).slice(-12);
  return { endHz: median(end.map(([, hz]) => hz)), medianHz: median(voiced.map(([, hz]) => hz)) };
}

/**
 * A speaker's pitch floor over a session: the 10th percentile of every voiced frame heard from
 * them so far (a semitone histogram, so it costs the same after an hour). Statements end near it;
 * a pause inside a sentence usually sits well above it.
 */
export class SpeakerPitch {
  /** Frames per semitone above 40 Hz, up to 1 kHz. */
  readonly #bins = new Uint32Array(56);
  #count = 0;

  add(hz: readonly number[]): void {
    for (const f of hz) {
      const bin = Math.round(semitones(f, binBaseHz));
      if (bin < 0 || bin >= this.#bins.length) continue;
      this.#bins[bin]! += 1;
      this.#count += 1;
    }
  }

  /** The floor in Hz, or null before any voiced frame. */
  get floorHz(): number | null {
    if (this.#count === 0) return null;
    let seen = 0;
    for (let bin = 0; bin < this.#bins.length; bin++) {
      seen += this.#bins[bin]!;
      if (seen >= this.#count * 0.1) return binBaseHz * 2 ** (bin / 12);
    }
    return null;
  }
}

const binBaseHz = 40;

/** The interval from `from` to `to` in semitones (negative: `to` is lower). */
export function semitones(to: number, from: number): number {
  return 12 * Math.log2(to / from);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
