import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio-frame.js';
import type { VadEvent } from './events.js';
import type { SileroVad } from './silero-vad.js';
import type { VadStreamOptions } from './vad-stream.js';

/**
 * 16 kHz frames in, speech events out: one VAD stream (own RNN state, ring buffer and options) per
 * subscription, its windows batched with every other stream's (silero-vad.ts). Completes once the
 * windows pushed before completion are scored; unsubscribing leaves the batcher at once.
 *
 * A frame the stream refuses (more than `maxPendingMs` waiting for the model) errors the
 * observable: feed it at most real time, or put ../listen.ts's intake in front.
 */
export function detectSpeech(
  vad: SileroVad,
  options: Partial<VadStreamOptions> = {},
): OperatorFunction<AudioFrame, VadEvent> {
  return (frames) =>
    new Observable<VadEvent>((subscriber) => {
      const stream = vad.stream(options, {
        event: (event) => subscriber.next(event),
        error: (err) => subscriber.error(err),
      });
      const input = frames.subscribe({
        next(frame) {
          try {
            if (!stream.push(frame)) subscriber.error(new Error('VAD is behind: frame refused (maxPendingMs)'));
          } catch (err) {
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => void stream.whenIdle().then(() => subscriber.complete()),
      });
      return () => {
        input.unsubscribe();
        stream.close();
      };
    });
}
