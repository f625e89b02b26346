import { callerSampleRate } from './caller-speech.js';

/** Frame length the caller sends: 20 ms, as real clients do. */
export const frameMs = 20;
const frameSamples = (callerSampleRate * frameMs) / 1000;

/**
 * The simulated caller's microphone: one 20 ms frame every 20 ms of wall time, like a phone's,
 * silence between lines. Real-time pace is a choice, not a limit of the path: the intake admits up
 * to 5 s ahead of real time (src/pipeline/intake/limits.ts), but the user's wait is measured from the
 * end of the caller's speech, and the VAD's end of turn, the agent's playout and barge-in all run
 * on the wall clock; audio sent ahead would make the waits and interruptions mean nothing a caller
 * ever meets. The schedule is kept against a start time, so timer lateness does not accumulate.
 */
export class PacedMicrophone {
  private readonly silence = new Int16Array(frameSamples);
  private line: { samples: Int16Array; at: number; done: (endedAt: number) => void } | null = null;
  private readonly queue: { samples: Int16Array; done: (endedAt: number) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sent = 0;
  private start = 0;

  constructor(private readonly send: (frame: Int16Array) => void) {}

  /** Starts sending (silence until a line is said). */
  open(): void {
    this.start = performance.now();
    this.tick();
  }

  /** Speaks `samples` after whatever is queued; resolves with the time its last frame was sent. */
  say(samples: Int16Array): Promise<number> {
    return new Promise((done) => this.queue.push({ samples, done }));
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    this.send(this.nextFrame());
    this.sent++;
    const due = this.start + this.sent * frameMs;
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - performance.now()));
  }

  private nextFrame(): Int16Array {
    if (this.line === null) {
      const next = this.queue.shift();
      if (next === undefined) return this.silence;
      this.line = { ...next, at: 0 };
    }
    const line = this.line;
    const frame = line.samples.subarray(line.at, line.at + frameSamples);
    line.at += frameSamples;
    if (line.at >= line.samples.length) {
      this.line = null;
      // The line's end is heard once this frame is sent: the frame's end is real time now.
      queueMicrotask(() => line.done(performance.now()));
    }
    return frame;
  }
}
