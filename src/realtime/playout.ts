import type { MediaTransport } from './transport.js';

export interface PlayoutOptions {
  /** Size of each audio message sent. */
  frameMs: number;
  /** How far ahead of real time audio is sent: the most a client has buffered when barge-in flushes. */
  leadMs: number;
}

export const defaultPlayoutOptions: Readonly<PlayoutOptions> = Object.freeze({ frameMs: 20, leadMs: 120 });

/**
 * Sends a session's speech at real-time pace, a frame at a time, never more than `leadMs` ahead of
 * what the client has played. Aborting a write stops it at the next frame: queued audio is simply
 * never sent, which is how barge-in drops it.
 */
export class Playout {
  /** Wall-clock time (performance.now) at which the audio sent so far finishes playing. */
  private playedUntil = 0;
  private readonly frameSamples: number;

  constructor(
    private readonly transport: MediaTransport,
    private readonly options: PlayoutOptions = defaultPlayoutOptions,
  ) {
    this.frameSamples = Math.max(1, Math.round((transport.outputSampleRate * options.frameMs) / 1000));
  }

  /** Sends `samples` (at the transport's output rate); resolves when the last frame is sent, false if aborted. */
  async write(samples: Int16Array, signal: AbortSignal): Promise<boolean> {
    for (let offset = 0; offset < samples.length; offset += this.frameSamples) {
      const ahead = this.playedUntil - performance.now();
      if (ahead > this.options.leadMs && !(await sleep(ahead - this.options.leadMs, signal))) return false;
      if (signal.aborted) return false;
      const frame = samples.subarray(offset, Math.min(samples.length, offset + this.frameSamples));
      this.transport.sendAudio(frame);
      const now = performance.now();
      this.playedUntil = Math.max(this.playedUntil, now) + (frame.length * 1000) / this.transport.outputSampleRate;
    }
    return !signal.aborted;
  }

  /** Resolves when everything sent has been played (by the clock); false if aborted first. */
  async drain(signal: AbortSignal): Promise<boolean> {
    const left = this.playedUntil - performance.now();
    return left <= 0 ? !signal.aborted : sleep(left, signal);
  }

  /** Forgets what was sent, after barge-in: the client was told to drop its buffer. */
  reset(): void {
    this.playedUntil = 0;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
