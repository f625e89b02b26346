import { Observable } from 'rxjs';
import { frameDurationMs, type AudioFrame } from './audio-frame.js';
import { ArrivalClock } from './intake/arrival-clock.js';
import { AudioBacklog } from './intake/audio-backlog.js';
import { defaultIntakeLimits, type IntakeLimits, type IntakeStats, type OverrunReason } from './intake/limits.js';
import { RealTimeMeter } from './intake/real-time-meter.js';
import { resampleTo } from './resample.js';
import type { VadOptions } from './vad/options.js';
import { vadSampleRate } from './vad/silero-format.js';
import type { SileroVad } from './vad/silero-vad.js';

/** 16 kHz PCM16. */
const bytesPerMs = (vadSampleRate * 2) / 1000;

/** What the microphone graph hears. Times are wall-clock ms on `now`'s clock. */
export type HeardEvent =
  /** Maybe speech (a window over the threshold, not yet `min_speech`): barge-in pauses playback on it. */
  | { type: 'speech_onset' }
  /** The onset did not last: resume what it paused. */
  | { type: 'speech_dismissed' }
  | { type: 'speech_start' }
  | {
      type: 'speech_end';
      /** The utterance at 16 kHz (prefix padding included). */
      audio: Int16Array;
      /** Stream time (ms since the session's first sample) of `audio[0]`. */
      startMs: number;
      durationMs: number;
      /** When the user stopped speaking: the arrival of the audio where the VAD placed the end of speech. */
      speechEndedAt: number;
      /** When the VAD decided the utterance was over (`min_silence_ms` of silence later). */
      decidedAt: number;
    }
  /** Inbound audio was dropped for the first time for this reason (later drops are only counted). */
  | { type: 'overrun'; reason: OverrunReason };

export interface ListenOptions {
  vad: SileroVad;
  vadOptions: Partial<VadOptions>;
  limits?: Partial<IntakeLimits>;
  /** The process-wide backlog; `processBacklog` unless a test brings its own. */
  backlog?: AudioBacklog;
  /** Counts drops as they happen. */
  stats?: IntakeStats;
  /** The audio of each possible utterance as the VAD scores it (VadSink.audio): a streaming recogniser's input. */
  onSpeechAudio?: (samples: Int16Array, atMs: number) => void;
  now?: () => number;
}

/** Every session's audio waiting for the VAD in this process, bounded by `processBacklogBytes`. */
export const processBacklog = new AudioBacklog(defaultIntakeLimits.processBacklogBytes);

/**
 * The microphone graph: a transport's frames → real-time meter → resample to 16 kHz → backlog
 * bound → Silero VAD (batched with every other session's windows on the VAD worker) → speech
 * start/end with the wall times latency is measured from.
 *
 * Backpressure: RxJS has none, so each edge has a policy. Frames beyond real time plus
 * `burstMs` are dropped whole at the meter; frames that would push the audio waiting for the VAD
 * past the session's or the process's bound are dropped whole before it (the VAD gives the bytes
 * back window by window as they are scored). Nothing else queues: the event loop hands each due
 * window to the batcher and never waits for inference (vad/vad-batcher.ts: the policy when the
 * model falls behind).
 */
export function listen(audio$: Observable<AudioFrame>, options: ListenOptions): Observable<HeardEvent> {
  const limits = { ...defaultIntakeLimits, ...options.limits };
  const now = options.now ?? (() => performance.now());
  const stats = options.stats ?? { droppedFrames: 0, droppedMs: 0 };
  return new Observable<HeardEvent>((subscriber) => {
    const meter = new RealTimeMeter(limits.burstMs, now());
    const backlog = (options.backlog ?? processBacklog).session(limits.sessionBacklogBytes);
    const clock = new ArrivalClock(vadSampleRate);
    const reported = new Set<OverrunReason>();
    const stream = options.vad.stream(
      { ...options.vadOptions, maxPendingMs: limits.sessionBacklogBytes / bytesPerMs },
      {
        event(event) {
          if (event.type === 'speech_onset' || event.type === 'speech_dismissed' || event.type === 'speech_start')
            subscriber.next({ type: event.type });
          else if (event.type === 'speech_end')
            subscriber.next({
              type: 'speech_end',
              audio: event.audio,
              startMs: Math.max(0, event.startAtMs - stream.options.prefixPaddingMs),
              durationMs: event.durationMs,
              speechEndedAt: clock.wallTimeOf(event.atMs),
              decidedAt: now(),
            });
        },
        processed: () => settle(),
        ...(options.onSpeechAudio === undefined ? {} : { audio: options.onSpeechAudio }),
        error: (err) => subscriber.error(err),
      },
    );

    /** The session's backlog is what waits for the model: whole windows pushed and not yet scored. */
    const settle = () => backlog.release(backlog.bytes - stream.waiting * 2);
    const drop = (reason: OverrunReason, ms: number) => {
      stats.droppedFrames++;
      stats.droppedMs += ms;
      if (reported.has(reason)) return;
      reported.add(reason);
      subscriber.next({ type: 'overrun', reason });
    };
    const hear = (frame: AudioFrame) => {
      const bytes = frame.samples.byteLength;
      const admitted = backlog.admit(bytes);
      if (admitted !== 'ok') {
        drop(admitted === 'session' ? 'session_backlog' : 'process_backlog', frameDurationMs(frame));
        return;
      }
      if (!stream.push(frame)) {
        backlog.release(bytes);
        drop('session_backlog', frameDurationMs(frame));
        return;
      }
      clock.record(frame.samples.length, now());
      settle();
    };

    const metered = new Observable<AudioFrame>((inner) =>
      audio$.subscribe({
        next: (frame) => {
          const ms = frameDurationMs(frame);
          if (meter.admit(ms, now())) inner.next(frame);
          else drop('faster_than_real_time', ms);
        },
        error: (err: unknown) => inner.error(err),
        complete: () => inner.complete(),
      }),
    );
    const input = metered.pipe(resampleTo(vadSampleRate)).subscribe({
      next: (frame) => {
        try {
          hear(frame);
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
      backlog.release(backlog.bytes); // the part-window the VAD never scored
    };
  });
}
