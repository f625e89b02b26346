import { defer, filter, finalize, map, merge, Subject, tap, type Observable } from 'rxjs';
import { frameDurationMs, type AudioFrame } from '../audio/audio-frame.js';
import { ArrivalClock } from './intake/arrival-clock.js';
import { AudioBacklog } from './intake/audio-backlog.js';
import {
  defaultIntakeLimits,
  sessionBacklogMs,
  type IntakeLimits,
  type IntakeStats,
  type OverrunReason,
} from './intake/limits.js';
import { RealTimeMeter } from './intake/real-time-meter.js';
import { resampleTo } from '../audio/resample.js';
import type { VadEvent, VadInferenceEvent } from './vad/events.js';
import { detectSpeech, type SpeechIntake } from './vad/detect-speech.js';
import { resolveVadOptions, type VadOptions } from './vad/options.js';
import { vadSampleRate } from './vad/silero-format.js';
import type { SileroVad } from './vad/silero-vad.js';
import type { VadStream } from './vad/vad-stream.js';

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

/** How far the VAD has got through a session's audio, as the wall times that audio arrived at. */
export interface VadProgress {
  /** The arrival of the last audio the VAD has scored. */
  heard: number;
  /** The arrival of the last audio handed to the VAD (scored or still waiting for the model). */
  arrived: number;
}

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
  /**
   * The VAD scored another window; `progress` gives the wall times at which the audio scored so far
   * and the last audio pushed to the VAD arrived (computed only when called: the listener asks only
   * while a turn waits on it).
   */
  onScored?: (progress: () => VadProgress) => void;
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
  return defer(() => {
    const meter = new RealTimeMeter(limits.burstMs, now());
    const backlog = (options.backlog ?? processBacklog).session(limits.sessionBacklogBytes);
    const clock = new ArrivalClock(vadSampleRate);
    const { prefixPaddingMs } = resolveVadOptions(options.vadOptions);
    // Drops are told in line with the speech events: synchronously, on the frame that was dropped.
    const overruns = new Subject<HeardEvent>();
    const reported = new Set<OverrunReason>();
    const drop = (reason: OverrunReason, ms: number) => {
      stats.droppedFrames++;
      stats.droppedMs += ms;
      if (reported.has(reason)) return;
      reported.add(reason);
      overruns.next({ type: 'overrun', reason });
    };
    /** How far the VAD has got (ListenOptions.onScored): made at its first window, read on demand. */
    let progress: (() => VadProgress) | undefined;
    /** The session's backlog is what waits for the model: whole windows pushed and not yet scored. */
    const settle = (stream: VadStream) => backlog.release(backlog.bytes - stream.waiting * 2);
    const intake: SpeechIntake = {
      refused(frame) {
        backlog.release(frame.samples.byteLength);
        drop('session_backlog', frameDurationMs(frame));
      },
      pushed(frame, stream) {
        clock.record(frame.samples.length, now());
        settle(stream);
      },
      processed(stream) {
        settle(stream);
        progress ??= () => ({ heard: clock.wallTimeOf(stream.processedMs), arrived: clock.lastArrival });
        options.onScored?.(progress);
      },
      ...(options.onSpeechAudio === undefined ? {} : { audio: options.onSpeechAudio }),
    };

    const heard = audio$.pipe(
      filter((frame) => {
        const ms = frameDurationMs(frame);
        if (meter.admit(ms, now())) return true;
        drop('faster_than_real_time', ms);
        return false;
      }),
      resampleTo(vadSampleRate),
      filter((frame) => {
        const admitted = backlog.admit(frame.samples.byteLength);
        if (admitted === 'ok') return true;
        drop(admitted === 'session' ? 'session_backlog' : 'process_backlog', frameDurationMs(frame));
        return false;
      }),
      detectSpeech(options.vad, { ...options.vadOptions, maxPendingMs: sessionBacklogMs(limits) }, intake),
      finalize(() => backlog.release(backlog.bytes)), // the part-window the VAD never scored
      filter((event): event is Exclude<VadEvent, VadInferenceEvent> => event.type !== 'inference'),
      map((event): HeardEvent => {
        if (event.type !== 'speech_end') return { type: event.type };
        return {
          type: 'speech_end',
          audio: event.audio,
          startMs: Math.max(0, event.startAtMs - prefixPaddingMs),
          durationMs: event.durationMs,
          speechEndedAt: clock.wallTimeOf(event.atMs),
          decidedAt: now(),
        };
      }),
      tap({ complete: () => overruns.complete() }),
    );
    // overruns first: a source that emits as it is subscribed (a test's `from`) may drop at once
    return merge(overruns, heard);
  });
}
