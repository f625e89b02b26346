import { wordsOf } from '../../../machines/turn-words/phrases.js';
import { fadedOut, finalFade } from './final-fade.js';
import { endTrack, pitchOfTrack, semitones, SpeakerPitch } from './final-pitch.js';
import type { SentenceEndLm } from './sentence-end-lm.js';

/** The agent's settings of the rule (README "Turn-taking"). */
export interface StatementEndSettings {
  /** log10 P(end of sentence | last two words) a finished statement reaches; null: the rule is off. */
  lmThreshold: number | null;
  /** Whether the pitch must also fall to the speaker's floor at the end. */
  pitchCheck: boolean;
}

/** What the rule found in one transcript and its audio, for logs and the benchmark. */
export interface StatementVerdict {
  complete: boolean;
  /** log10 P(end of sentence | last two words). */
  lm: number;
  /** Final pitch against the utterance's median, in semitones (negative: a fall); null: too little voicing. */
  fall: number | null;
  /** Final pitch above the speaker's floor, in semitones. */
  aboveFloor: number | null;
  /** How far the voice fell over its last 200 ms, as a share of its range; null: too noisy to tell. */
  fade: number | null;
  /** The voice faded out at the end (or the line was too noisy to tell), as a finished utterance does. */
  fadedOut: boolean;
}

/** The final pitch must lie this far below the utterance's median (semitones)… */
const minFall = -1;
/** …and within this of the speaker's floor. */
const maxAboveFloor = 1.5;

/**
 * Whether an unpunctuated transcript is a finished statement, from evidence on the box (no trained
 * weights): the recogniser's language model says a sentence is likely to end after its last words,
 * and the voice falls at the end to the speaker's floor, as statements do; a pause inside a
 * sentence usually stays above it. One per session: it learns the speaker's floor as they talk.
 * Measured on people's recorded voices (bench/README.md "Turn-taking on people's voices").
 */
export class StatementEnd {
  readonly #speaker = new SpeakerPitch();

  constructor(
    private readonly lm: SentenceEndLm,
    private readonly settings: StatementEndSettings,
  ) {}

  /** The verdict on `transcript`, spoken as `audio` (mono PCM16 at `sampleRate`); null when the rule is off. */
  judge(transcript: string, audio: Int16Array, sampleRate: number): StatementVerdict | null {
    const { lmThreshold, pitchCheck } = this.settings;
    if (lmThreshold === null) return null;
    const lm = this.lm.endLog10(wordsOf(transcript));
    const track = endTrack(audio, sampleRate);
    const pitch = pitchOfTrack(track, this.#speaker);
    const floor = this.#speaker.floorHz;
    const fall = pitch === null ? null : semitones(pitch.endHz, pitch.medianHz);
    const aboveFloor = pitch === null || floor === null ? null : semitones(pitch.endHz, floor);
    const falls = fall !== null && aboveFloor !== null && fall <= minFall && aboveFloor <= maxAboveFloor;
    const ending = finalFade(track);
    // with the voice check off, neither the pitch nor the fade counts (both are still logged)
    const faded = !pitchCheck || fadedOut(ending);
    return {
      complete: lm >= lmThreshold && (!pitchCheck || (falls && faded)),
      lm,
      fall,
      aboveFloor,
      fade: ending === null ? null : ending.fallDb / ending.rangeDb,
      fadedOut: faded,
    };
  }
}
