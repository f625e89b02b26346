import type { SpeechEndReason } from './speech-gate.js';

/**
 * What a VAD stream emits. Times are stream time in ms: 0 is the first sample pushed into the
 * stream (after resampling), so they line up with the audio, not with the wall clock.
 */
export type VadEvent = SpeechOnsetEvent | SpeechDismissedEvent | SpeechStartEvent | SpeechEndEvent | VadInferenceEvent;

/**
 * A window scored at or above the threshold while idle: speech may have begun. Not yet confirmed
 * (that is `speech_start`, after `minSpeechMs`); a barge-in pauses playback on it, at once.
 */
export interface SpeechOnsetEvent {
  type: 'speech_onset';
  /** Start of the window. */
  atMs: number;
  /** End of the window (when it could be known). */
  detectedAtMs: number;
}

/** The run announced by `speech_onset` fell silent before `minSpeechMs`: not speech after all. */
export interface SpeechDismissedEvent {
  type: 'speech_dismissed';
  /** Onset of the run. */
  atMs: number;
  /** End of the window that broke the run. */
  detectedAtMs: number;
}

export interface SpeechStartEvent {
  type: 'speech_start';
  /** Onset: start of the first window of the speech run that confirmed it. */
  atMs: number;
  /** End of the window that confirmed it (`atMs` + at least `minSpeechMs`). */
  detectedAtMs: number;
}

export interface SpeechEndEvent {
  type: 'speech_end';
  /** End of the last speech window (where the closing silence began). */
  atMs: number;
  /** End of the window that decided it (`atMs` + `minSilenceMs`, or the max-length cut). */
  detectedAtMs: number;
  /** Onset of this utterance (same as its `speech_start.atMs`). */
  startAtMs: number;
  /**
   * The utterance at 16 kHz: `prefixPaddingMs` before the onset, the speech, and up to
   * `prefixPaddingMs` of the closing silence. A fresh array the receiver owns (one copy per utterance).
   */
  audio: Int16Array;
  sampleRate: number;
  /** Duration of `audio` in ms. */
  durationMs: number;
  reason: SpeechEndReason;
}

export interface VadInferenceEvent {
  type: 'inference';
  /** End of the 32 ms window. */
  atMs: number;
  probability: number;
  speaking: boolean;
}
