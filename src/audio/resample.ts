/**
 * `resampleTo(rate)`: frames at the transport's rate in, frames at `rate` out. Frames already at
 * `rate` pass through untouched (same object, no copy). Otherwise one `Resampler` (polyphase
 * windowed sinc, plain TypeScript) per subscription, created for the first frame's rate; each input
 * frame yields one output frame (empty ones are skipped) and completion flushes the filter's tail.
 *
 * Why not @livekit/rtc-node's AudioResampler (which works without a LiveKit server): it reads a
 * view's whole ArrayBuffer from offset 0, so `subarray` frames (how transports and files hand audio
 * over) resample the wrong samples unless copied first, and its native handle keeps the Node
 * process from exiting. For 48 kHz → 16 kHz (browsers, LiveKit) Parley's filter takes its integer
 * decimation path (folded symmetric taps), which costs less CPU per audio second than rtc-node's
 * resampler on the same audio (bench/vad.ts measures both, same run).
 */
import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from './audio-frame.js';
import { Resampler } from './resampler.js';

export class ResampleInputError extends Error {
  override readonly name = 'ResampleInputError';
}

export function resampleTo(rate: number): OperatorFunction<AudioFrame, AudioFrame> {
  if (!Number.isInteger(rate) || rate < 1000 || rate > 192_000)
    throw new RangeError(`resampleTo: rate ${rate} Hz is out of range`);
  return (frames) =>
    new Observable<AudioFrame>((subscriber) => {
      let inputRate = 0;
      let resampler: Resampler | undefined;
      return frames.subscribe({
        next(frame) {
          if (inputRate === 0) {
            inputRate = frame.sampleRate;
            if (inputRate !== rate) resampler = new Resampler(inputRate, rate);
          } else if (frame.sampleRate !== inputRate) {
            subscriber.error(
              new ResampleInputError(`sample rate changed mid-stream from ${inputRate} Hz to ${frame.sampleRate} Hz`),
            );
            return;
          }
          if (!resampler) {
            subscriber.next(frame);
            return;
          }
          const samples = resampler.push(frame.samples);
          if (samples.length > 0) subscriber.next({ samples, sampleRate: rate });
        },
        error: (err: unknown) => subscriber.error(err),
        complete() {
          const tail = resampler?.flush();
          if (tail && tail.length > 0) subscriber.next({ samples: tail, sampleRate: rate });
          subscriber.complete();
        },
      });
    });
}
