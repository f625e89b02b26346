import { defer, filter, map, merge, of, Subject, take, timer, type Observable } from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import { sessionBacklogMs } from '../pipeline/intake/limits.js';
import type { VadProgress } from '../pipeline/listen.js';
import { vadSampleRate, vadWindowSamples } from '../pipeline/vad/silero-format.js';

const vadWindowMs = (vadWindowSamples * 1000) / vadSampleRate;

/**
 * Longest a turn's confirmation waits for audio up to the end of its wait to arrive: beyond a
 * window's worth and a batch, the client has stopped sending audio (a stalled connection), and the
 * silence it sent last is all there is to hear.
 */
export const maxSettleMs = 150;

/**
 * How far the VAD has heard a session's audio: the arrival (wall time) of the last audio it
 * scored, and of the last audio it was handed. A turn is confirmed after a silence; this says when
 * that silence has really been heard, so speech that began just before the wait ran out (its
 * window still being scored, or waiting for the model on a loaded machine) resumes the turn
 * instead of starting another.
 */
export class HeardSoFar {
  /**
   * @param maxVadLagMs Longest it waits for the VAD to score audio that has arrived: the session's
   *   VAD backlog bound (intake/limits.ts), past which audio is dropped unscored. The VAD catches
   *   up long before on any machine that keeps up at all; this only keeps a stuck model from
   *   holding a turn.
   */
  constructor(private readonly maxVadLagMs = sessionBacklogMs()) {}

  #progress: () => VadProgress = () => ({ heard: -Infinity, arrived: -Infinity });
  readonly #scored = new Subject<void>();

  /** The VAD scored another window; `progress` says how far (read only while a turn waits). */
  scored(progress: () => VadProgress): void {
    this.#progress = progress;
    if (this.#scored.observed) this.#scored.next();
  }

  /**
   * SILENCE_HEARD once the VAD has scored the audio that arrived up to `until`, but for the last
   * part-window, which waits for audio still to come. When that audio has not arrived
   * `maxSettleMs` later, the client stopped sending: heard. Audio that has arrived is waited for
   * while the VAD scores it (a loaded machine), `maxVadLagMs` at most.
   */
  silenceHeard(until: number): Observable<SessionEvent> {
    const from = until - vadWindowMs;
    const heard = () => this.#progress().heard >= from;
    const scored = defer(() => (heard() ? of(undefined) : this.#scored.pipe(filter(heard))));
    const stalled = timer(maxSettleMs).pipe(filter(() => this.#progress().arrived < from));
    return merge(scored, stalled, timer(this.maxVadLagMs)).pipe(
      take(1),
      map((): SessionEvent => ({ type: 'SILENCE_HEARD' })),
    );
  }
}
