import { asyncScheduler, NEVER, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { FrameQueue } from './frame-queue.js';

export interface PlayoutOptions {
  /** Rate of the audio in and of the frames sent (the transport's output rate). */
  sampleRate: number;
  /** Size of each audio message sent: every frame is exactly this long (the last one padded with silence). */
  frameMs: number;
  /** How far ahead of real time audio is sent: the most a client has buffered when barge-in flushes. */
  leadMs: number;
  /**
   * While true, nothing is sent and the clock of what the client has played stands still (the
   * client pauses its player too); on false, sending resumes where it stopped. Default: never paused.
   */
  paused$?: Observable<boolean>;
  /**
   * For a sink that cannot pause (LiveKit's AudioSource plays what it holds): drops the audio it
   * holds. Given, a pause calls it and the playout sends that audio (what was sent and, by the
   * clock, not yet played) again on resume, so the agent falls silent at once and nothing is lost.
   */
  dropQueued?: () => void;
  /** Told where each frame plays and where playback stops (a session's recording). */
  tap?: PlayoutTap | undefined;
}

/** What the playout clock says about the audio it sends, for a recording of what was heard. */
export interface PlayoutTap {
  /** `samples` (just sent) start playing `delayMs` from now: > 0 right after audio still playing, 0 after a gap. */
  frame(samples: Int16Array, delayMs: number): void;
  /** Playback stops now: nothing scheduled from now on is heard (barge-in, a sink that dropped its audio). */
  cut(): void;
  /** The client paused its player now: what it holds plays on `resume`. */
  pause(): void;
  resume(): void;
}

export const defaultPlayoutTiming = Object.freeze({ frameMs: 20, leadMs: 120 });

/** Speech for one sentence of an answer, at the playout rate. */
export interface SpeechChunk {
  /** Index of the sentence this audio speaks (0 = first). */
  sentence: number;
  samples: Int16Array;
}

export type PlayoutEvent =
  /** The first frame of a sentence is about to be sent (emitted before `send` is called for it). */
  | { type: 'sentence_audio'; sentence: number }
  /** Everything was sent and, by the clock, played: the answer is over. */
  | { type: 'drained'; samples: number };

/**
 * Sends speech at real-time pace, a frame at a time, never more than `leadMs` ahead of what the
 * client has played; completes once the last frame has been played (by the scheduler's clock).
 * Unsubscribing stops at once: queued audio is never sent and no timer is left behind, which is
 * how barge-in flushes an answer.
 *
 * Every frame sent is exactly `frameMs` long (a FrameQueue): a chunk's short tail waits for the
 * next chunk and goes out joined with its head, unless the client is about to run dry (then, as at
 * the end of the answer, it goes out padded with silence), so a slow sentence never holds back
 * the end of the one before it.
 *
 * Backpressure: chunks queue here until their time comes. The queue is bounded by the answer
 * (the LLM's max_tokens or the webhook's 256 KiB reply), so nothing is dropped.
 */
export function playout(
  send: (frame: Int16Array) => void,
  options: PlayoutOptions,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<SpeechChunk, PlayoutEvent> {
  const frameSamples = Math.max(1, Math.round((options.sampleRate * options.frameMs) / 1000));
  const msPerSample = 1000 / options.sampleRate;
  const frameDurationMs = frameSamples * msPerSample;
  return (chunks) =>
    new Observable<PlayoutEvent>((subscriber) => {
      const queue = new FrameQueue(frameSamples);
      let playedUntil = Number.NEGATIVE_INFINITY;
      let sent = 0;
      let ended = false;
      let wake: Subscription | null = null;
      /** The wake is only for a short tail waiting for more audio: new audio may go out before it. */
      let tailWait = false;
      let pausedAt: number | null = null;
      /** The frames sent last, covering at least `leadMs` (only kept for `dropQueued`). */
      const recent: SpeechChunk[] = [];
      let recentSamples = 0;
      const keepSamples = Math.ceil((options.leadMs + 2 * options.frameMs) / msPerSample);

      const sleep = (ms: number, forTail: boolean): void => {
        wake = forTail ? scheduler.schedule(() => pump(true), Math.max(0, ms)) : scheduler.schedule(() => pump(), ms);
        tailWait = forTail;
      };
      /** `tailDue`: a short tail waited until the client held one frame (or less): it goes out now. */
      const pump = (tailDue = false): void => {
        wake = null;
        tailWait = false;
        if (pausedAt !== null) return;
        while (queue.samples > 0) {
          const now = scheduler.now();
          const ahead = playedUntil - now;
          if (ahead > options.leadMs) return sleep(ahead - options.leadMs, false);
          // a short tail waits for the next chunk until the client is about to run dry (on the
          // scheduler even then, so chunks handed over together are joined)
          const frame = queue.take(ended || (tailDue && ahead <= frameDurationMs));
          if (frame === null) return sleep(ahead - frameDurationMs, true);
          for (const sentence of frame.starts) {
            subscriber.next({ type: 'sentence_audio', sentence });
            if (subscriber.closed) return;
          }
          send(frame.samples);
          options.tap?.frame(frame.samples, Math.max(0, ahead));
          sent += frame.samples.length;
          if (options.dropQueued !== undefined) {
            recent.push({ sentence: frame.sentence, samples: frame.samples });
            recentSamples += frame.samples.length;
            while (recentSamples - recent[0]!.samples.length >= keepSamples)
              recentSamples -= recent.shift()!.samples.length;
          }
          playedUntil = Math.max(playedUntil, now) + frame.samples.length * msPerSample;
        }
        if (!ended) return;
        const left = playedUntil - scheduler.now();
        if (left > 0) wake = scheduler.schedule(drained, left);
        else drained();
      };
      const drained = (): void => {
        subscriber.next({ type: 'drained', samples: sent });
        subscriber.complete();
      };
      /** Audio came (or the answer ended): send what can go now, unless a send is already due. */
      const nudge = (): void => {
        if (wake !== null && !tailWait) return;
        wake?.unsubscribe();
        pump();
      };

      /** The sink drops what it holds; what that was goes back to the head of the queue. */
      const unsend = (now: number): void => {
        let unplayed = Math.min(recentSamples, Math.max(0, Math.round((playedUntil - now) / msPerSample)));
        if (unplayed === 0) return;
        options.dropQueued!();
        sent -= unplayed;
        playedUntil = now;
        while (unplayed > 0) {
          const last = recent.pop()!;
          recentSamples -= last.samples.length;
          const take = Math.min(unplayed, last.samples.length);
          queue.unshift({ sentence: last.sentence, samples: last.samples.subarray(last.samples.length - take) });
          unplayed -= take;
        }
      };
      const pauses = (options.paused$ ?? NEVER).subscribe((paused) => {
        const now = scheduler.now();
        if (paused && pausedAt === null) {
          pausedAt = now;
          wake?.unsubscribe();
          wake = null;
          tailWait = false;
          if (options.dropQueued !== undefined) {
            // the sink drops what it holds; it is sent (and told) again on resume
            options.tap?.cut();
            unsend(now);
          } else options.tap?.pause();
        } else if (!paused && pausedAt !== null) {
          if (options.dropQueued === undefined) options.tap?.resume();
          // what the client had buffered when it paused is still to play
          playedUntil = now + Math.max(0, playedUntil - pausedAt);
          pausedAt = null;
          // on the scheduler, not inline: a resume sent as the reply is being torn down sends nothing
          wake = scheduler.schedule(() => pump());
        }
      });
      const input = chunks.subscribe({
        next: (chunk) => {
          if (chunk.samples.length === 0) return;
          queue.push(chunk);
          nudge();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          ended = true;
          nudge();
        },
      });
      return () => {
        // the answer is over or cut (barge-in): whatever was scheduled past now is never heard
        options.tap?.cut();
        pauses.unsubscribe();
        input.unsubscribe();
        wake?.unsubscribe();
        queue.clear();
      };
    });
}
