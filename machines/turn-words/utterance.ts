/**
 * One utterance made of the speech segments the VAD cut at short silences: when the user goes on
 * after the short silence, the next segment is appended to what was heard so far. Pure.
 */

export interface Segment {
  /** 16 kHz mono PCM16, prefix padding and closing silence included. */
  audio: Int16Array;
  /** Stream time (ms since the session's first sample) of `audio[0]`. */
  startMs: number;
}

const samplesPerMs = 16;

/** `first` then whatever of `next` is later than `first`'s end (their paddings overlap). */
export function joinSegments(first: Segment, next: Segment): Segment {
  const firstEndMs = first.startMs + first.audio.length / samplesPerMs;
  const skip = Math.min(next.audio.length, Math.max(0, Math.round((firstEndMs - next.startMs) * samplesPerMs)));
  const audio = new Int16Array(first.audio.length + next.audio.length - skip);
  audio.set(first.audio, 0);
  audio.set(next.audio.subarray(skip), first.audio.length);
  return { audio, startMs: first.startMs };
}
