/**
 * A microphone on Parley's WebSocket media protocol: one 20 ms frame of 16 kHz PCM16 every 20 ms,
 * queued speech when there is some, silence otherwise, each frame's send time known to the caller
 * (when the frame holding the speech's first or last sample went out).
 */
import { FrameClock } from '../../test/support/frame-clock.js';
import type { VoiceClient } from '../../test/support/voice-client.js';

const rate = 16_000;
const frameMs = 20;
const frameSamples = (rate * frameMs) / 1000;

export class PacedMic {
  readonly #queue: { frame: Int16Array; onSent?: (at: number) => void }[] = [];
  readonly #silence = new Int16Array(frameSamples);
  #running = true;
  readonly #done: Promise<void>;

  constructor(private readonly client: VoiceClient) {
    this.#done = this.#loop();
  }

  async #loop(): Promise<void> {
    const clock = new FrameClock(frameMs);
    while (this.#running && this.client.ws.readyState === this.client.ws.OPEN) {
      const next = this.#queue.shift();
      const frame = next?.frame ?? this.#silence;
      this.client.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
      next?.onSent?.(performance.now());
      await clock.tick();
    }
  }

  /** Queues `samples` (zero-padded to whole frames); resolves with when its first and last frames went. */
  say(samples: Int16Array): Promise<{ onsetAt: number; endAt: number }> {
    return new Promise((resolve) => {
      const frames = Math.ceil(samples.length / frameSamples);
      let onsetAt = 0;
      for (let f = 0; f < frames; f++) {
        const frame = new Int16Array(frameSamples);
        frame.set(samples.subarray(f * frameSamples, Math.min(samples.length, (f + 1) * frameSamples)));
        const onSent =
          f === 0 && frames === 1
            ? (at: number) => resolve({ onsetAt: at, endAt: at })
            : f === 0
              ? (at: number) => (onsetAt = at)
              : f === frames - 1
                ? (at: number) => resolve({ onsetAt, endAt: at })
                : undefined;
        this.#queue.push(onSent === undefined ? { frame } : { frame, onSent });
      }
    });
  }

  pause(ms: number): Promise<{ onsetAt: number; endAt: number }> {
    return this.say(new Int16Array(Math.round((ms * rate) / 1000)));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}
