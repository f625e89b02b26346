import { concatMap, defer, mergeAll, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio-frame.js';
import type { VadEvent } from './events.js';
import type { VadOptions } from './options.js';
import type { SileroVad } from './silero-vad.js';

/**
 * 16 kHz frames in, speech events out: one VAD stream (own RNN state, ring buffer and options) per
 * subscription, on the shared model session.
 *
 * Backpressure: frames queue in `concatMap` while a window is being scored (one stream's windows
 * must run in order). A 32 ms window takes ~0.2 ms, so the queue stays at zero or one frame unless
 * the process is overloaded. A session's microphone graph (../listen.ts) bounds what reaches it.
 */
export function detectSpeech(
  vad: SileroVad,
  options: Partial<VadOptions> = {},
): OperatorFunction<AudioFrame, VadEvent> {
  return (frames) =>
    defer(() => {
      const stream = vad.stream(options);
      return frames.pipe(
        concatMap((frame) => stream.push(frame)),
        mergeAll(),
      );
    });
}
