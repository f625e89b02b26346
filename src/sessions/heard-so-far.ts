import { defer, filter, map, of, race, Subject, take, timer, type Observable } from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import { vadSampleRate, vadWindowSamples } from '../pipeline/vad/silero-format.js';

const vadWindowMs = (vadWindowSamples * 1000) / vadSampleRate;

/**
 * Longest a turn's confirmation waits for the VAD to catch up: beyond a window's worth of audio
 * and a batch, the client has stopped sending audio (a stalled connection), and the silence it
 * sent last is all there is to hear.
 */
export const maxSettleMs = 150;

/**
 * How far the VAD has heard a session's audio: the arrival (wall time) of the last audio it
 * scored. A turn is confirmed after a silence; this says when that silence has really been heard,
 * so speech that began just before the wait ran out (its window still being scored) resumes the
 * turn instead of starting another.
 */
export class HeardSoFar {
  #heardUntil: () => number = () => -Infinity;
  readonly #scored = new Subject<void>();

  /** The VAD scored another window; `heardUntil` says how far (read only while a turn waits). */
  scored(heardUntil: () => number): void {
    this.#heardUntil = heardUntil;
    if (this.#scored.observed) this.#scored.next();
  }

  /**
   * SILENCE_HEARD once the VAD has scored the audio that arrived up to `until`, but for the last
   * part-window, which waits for audio still to come; or `maxSettleMs` later at most.
   */
  silenceHeard(until: number): Observable<SessionEvent> {
    const heard = () => this.#heardUntil() >= until - vadWindowMs;
    const scored = defer(() => (heard() ? of(undefined) : this.#scored.pipe(filter(heard))));
    return race(scored, timer(maxSettleMs)).pipe(
      take(1),
      map((): SessionEvent => ({ type: 'SILENCE_HEARD' })),
    );
  }
}
