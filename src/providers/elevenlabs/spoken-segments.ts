import type { Alignment } from './elevenlabs-protocol.js';

const space = /\s/;

function letters(text: string): number {
  let n = 0;
  for (const c of text) if (!space.test(c)) n++;
  return n;
}

/** A run of a chunk's samples and the segment it speaks. */
export interface SegmentAudio {
  segment: number;
  samples: Int16Array;
}

/**
 * Which segment of the text (the runs between two flushes) each piece of audio speaks, from the
 * alignment ElevenLabs sends with every audio chunk: the characters it speaks, each with its start
 * in the chunk. Characters are counted without whitespace on both sides, so spacing the server
 * trims or adds does not shift them. A chunk where a segment starts is cut at that character's
 * start; a chunk without alignment belongs to the segment being spoken.
 */
export class SpokenSegments {
  /** Letters (non-whitespace characters) sent so far. */
  private sent = 0;
  /** Letters sent when each segment was flushed: segment k is letters [ends[k-1], ends[k]). */
  private readonly ends: number[] = [];
  /** Letters the audio has spoken so far. */
  private spoken = 0;

  /** `text` went to the server as part of the current segment. */
  add(text: string): void {
    this.sent += letters(text);
  }

  /** The current segment ends here. */
  flush(): void {
    this.ends.push(this.sent);
  }

  /** Letters sent; 0 means nothing was there to speak. */
  get letters(): number {
    return this.sent;
  }

  /** One audio chunk (PCM at `sampleRate`) cut where a segment starts in it. */
  place(samples: Int16Array, sampleRate: number, alignment: Alignment | null | undefined): SegmentAudio[] {
    const runs: { segment: number; at: number }[] = [{ segment: this.segmentOf(this.spoken), at: 0 }];
    if (alignment !== null && alignment !== undefined) {
      alignment.chars.forEach((char, i) => {
        if (letters(char) === 0) return;
        const segment = this.segmentOf(this.spoken++);
        const last = runs[runs.length - 1]!;
        if (segment === last.segment) return;
        const at = Math.round(((alignment.charStartTimesMs[i] ?? 0) * sampleRate) / 1000);
        const clamped = Math.min(samples.length, Math.max(last.at, at));
        if (clamped === last.at) last.segment = segment;
        else runs.push({ segment, at: clamped });
      });
    }
    return runs.map((run, i) => ({
      segment: run.segment,
      samples: samples.subarray(run.at, runs[i + 1]?.at ?? samples.length),
    }));
  }

  /** The segment letter `index` belongs to. */
  private segmentOf(index: number): number {
    let k = 0;
    while (k < this.ends.length && this.ends[k]! <= index) k++;
    return k;
  }
}
