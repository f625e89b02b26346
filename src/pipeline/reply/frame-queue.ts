import type { SpeechChunk } from './playout.js';

/** One frame out of the queue, and the sentences whose first sample is in it. */
export interface QueuedFrame {
  samples: Int16Array;
  /** Sentences that start in this frame, in order (usually none, one at a sentence's first frame). */
  starts: number[];
  /** The sentence of the frame's last speech sample (what a resend of it is filed under). */
  sentence: number;
}

/**
 * Speech waiting for the playout, handed out in whole frames whatever the chunks' sizes (a TTS
 * sentence, a resampler's output, audio a sink dropped and the playout sends again): a frame that
 * lies in one chunk is a view into it; one that spans chunks is joined into a fresh frame (once per
 * chunk boundary, not per frame). A tail shorter than a frame waits for the next chunk, or is
 * padded with silence (zeros) when `take` is told the speech ends there. So every message a
 * transport sends is exactly one frame (Twilio Media Streams: 160 μ-law bytes, 20 ms).
 */
export class FrameQueue {
  private readonly chunks: SpeechChunk[] = [];
  /** Samples of `chunks[0]` already taken. */
  private offset = 0;
  #samples = 0;
  /** The highest sentence whose first sample was taken (-1: none yet). */
  private started = -1;

  constructor(readonly frameSamples: number) {
    if (!Number.isInteger(frameSamples) || frameSamples <= 0)
      throw new RangeError('FrameQueue: frameSamples must be a positive integer');
  }

  /** Samples queued, not yet taken. */
  get samples(): number {
    return this.#samples;
  }

  push(chunk: SpeechChunk): void {
    if (chunk.samples.length === 0) return;
    this.chunks.push(chunk);
    this.#samples += chunk.samples.length;
  }

  /** Puts audio back at the head (a sink dropped it after it was taken): it is taken again first. */
  unshift(chunk: SpeechChunk): void {
    if (chunk.samples.length === 0) return;
    if (this.offset > 0) {
      const head = this.chunks[0]!;
      this.chunks[0] = { sentence: head.sentence, samples: head.samples.subarray(this.offset) };
      this.offset = 0;
    }
    this.chunks.unshift(chunk);
    this.#samples += chunk.samples.length;
  }

  /**
   * The next whole frame; with fewer than a frame's samples queued, null unless `pad` (the speech
   * ends here: the tail is sent, padded with silence) and something is queued.
   */
  take(pad: boolean): QueuedFrame | null {
    if (this.#samples === 0 || (this.#samples < this.frameSamples && !pad)) return null;
    const starts: number[] = [];
    const head = this.chunks[0]!;
    if (head.samples.length - this.offset >= this.frameSamples) {
      this.note(head, starts);
      const samples = head.samples.subarray(this.offset, this.offset + this.frameSamples);
      this.advance(head, samples.length);
      return { samples, starts, sentence: head.sentence };
    }
    // the frame spans chunks (or is the padded tail): the one copy, at a chunk boundary
    const samples = new Int16Array(this.frameSamples);
    let filled = 0;
    let sentence = head.sentence;
    while (filled < this.frameSamples && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      this.note(chunk, starts);
      const part = chunk.samples.subarray(this.offset, this.offset + this.frameSamples - filled);
      samples.set(part, filled);
      filled += part.length;
      sentence = chunk.sentence;
      this.advance(chunk, part.length);
    }
    return { samples, starts, sentence };
  }

  /** Drops everything queued (the answer was cut). */
  clear(): void {
    this.chunks.length = 0;
    this.offset = 0;
    this.#samples = 0;
  }

  private note(chunk: SpeechChunk, starts: number[]): void {
    if (chunk.sentence <= this.started) return;
    this.started = chunk.sentence;
    starts.push(chunk.sentence);
  }

  private advance(chunk: SpeechChunk, taken: number): void {
    this.offset += taken;
    this.#samples -= taken;
    if (this.offset >= chunk.samples.length) {
      this.chunks.shift();
      this.offset = 0;
    }
  }
}
