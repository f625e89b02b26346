import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../../audio/audio-frame.js';
import type { VadEvent } from './events.js';
import type { SileroVad } from './silero-vad.js';
import type { VadSink, VadStream, VadStreamOptions } from './vad-stream.js';

/**
 * What stands in front of the stream (../listen.ts's intake): it hears each frame the stream takes
 * or refuses and each window scored, and may tap the audio of possible utterances.
 */
export interface SpeechIntake {
  /** The stream refused `frame` (more than `maxPendingMs` waiting for the model). Unset: the observable errors. */
  refused?(frame: AudioFrame): void;
  /** The stream took `frame`. */
  pushed?(frame: AudioFrame, stream: VadStream): void;
  /** A window went through the model (VadSink.processed). */
  processed?(stream: VadStream): void;
  /** VadSink.audio: the audio of each possible utterance as it is scored. */
  audio?: VadSink['audio'];
}

/**
 * 16 kHz frames in, speech events out: the one way Parley runs the VAD over frames. One VAD stream
 * (own RNN state, ring buffer and options) per subscription, its windows batched with every other
 * stream's (silero-vad.ts). Completes once the windows pushed before completion are scored;
 * unsubscribing leaves the batcher at once. A throw while pushing errors the observable.
 *
 * Backpressure: a frame the stream refuses goes to `intake.refused` (listen.ts drops it whole);
 * without one it errors the observable, so feed it at most real time or put listen.ts's intake in
 * front.
 */
export function detectSpeech(
  vad: SileroVad,
  options: Partial<VadStreamOptions> = {},
  intake: SpeechIntake = {},
): OperatorFunction<AudioFrame, VadEvent> {
  return (frames) =>
    new Observable<VadEvent>((subscriber) => {
      const { processed, audio } = intake;
      const sink: VadSink = {
        event: (event) => subscriber.next(event),
        error: (err) => subscriber.error(err),
        ...(processed === undefined ? {} : { processed: () => processed(stream) }),
        ...(audio === undefined ? {} : { audio }),
      };
      const stream = vad.stream(options, sink);
      const refused =
        intake.refused ?? (() => subscriber.error(new Error('VAD is behind: frame refused (maxPendingMs)')));
      const input = frames.subscribe({
        next(frame) {
          try {
            if (stream.push(frame)) intake.pushed?.(frame, stream);
            else refused(frame);
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
