/**
 * The VAD's decision logic, apart from the model: per-window speech probabilities in, speech
 * start/end decisions out. Pure and synchronous, so it is tested with marbles on synthetic
 * probabilities; `SileroVad` streams feed it the model's output.
 */
import { defer, filter, map, type OperatorFunction } from 'rxjs';
import { resolveVadOptions, type VadOptions } from './options.js';

export type SpeechDecision =
  /**
   * The first window at or above the threshold while idle: maybe speech, not yet confirmed. Comes
   * only when confirming takes longer than this one window (`minSpeechMs` > the window).
   */
  | { type: 'onset'; onsetMs: number; atMs: number }
  /** The run that began at `onsetMs` fell below the threshold before lasting `minSpeechMs`: a click, not speech. */
  | { type: 'dismissed'; onsetMs: number; atMs: number }
  /** Speech confirmed (lasted `minSpeechMs`); it began at `onsetMs`. */
  | { type: 'start'; onsetMs: number; atMs: number }
  /** Speech over: last speech window ended at `speechEndMs`; decided at `atMs`. */
  | { type: 'end'; onsetMs: number; speechEndMs: number; atMs: number; reason: SpeechEndReason };

/** `silence`: `minSilenceMs` of silence; `max_length`: the utterance reached `maxUtteranceMs`. */
export type SpeechEndReason = 'silence' | 'max_length';

type GateOptions = Pick<VadOptions, 'threshold' | 'negThreshold' | 'minSpeechMs' | 'minSilenceMs' | 'maxUtteranceMs'>;

/**
 * Hysteresis state machine over fixed-length windows. Times are stream time in ms: the end of the
 * window the probability belongs to (window n covers [n·windowMs, (n+1)·windowMs)).
 */
export class SpeechGate {
  readonly #threshold: number;
  readonly #negThreshold: number;
  readonly #opts: GateOptions;
  #speaking = false;
  /** Start of the current run of speech windows (idle) or of the utterance (speaking); -1 when none. */
  #onsetMs = -1;
  /** Start of the current run of silence windows while speaking; -1 when none. */
  #silenceFromMs = -1;

  constructor(
    options: Partial<GateOptions>,
    readonly windowMs: number,
  ) {
    const o = resolveVadOptions(options);
    this.#opts = o;
    this.#threshold = o.threshold;
    this.#negThreshold = o.negThreshold ?? Math.max(0.01, o.threshold - 0.15);
  }

  get speaking(): boolean {
    return this.#speaking;
  }

  /** Not speaking and no run of speech windows under way: a probability under the threshold leaves the gate as it is. */
  get idle(): boolean {
    return !this.#speaking && this.#onsetMs < 0;
  }

  /** Feeds the probability of the window ending at `windowEndMs`; returns a decision or null. */
  push(probability: number, windowEndMs: number): SpeechDecision | null {
    const windowStartMs = windowEndMs - this.windowMs;
    if (!this.#speaking) {
      if (probability >= this.#threshold) {
        const first = this.#onsetMs < 0;
        if (first) this.#onsetMs = windowStartMs;
        if (windowEndMs - this.#onsetMs >= this.#opts.minSpeechMs) {
          this.#speaking = true;
          this.#silenceFromMs = -1;
          return { type: 'start', onsetMs: this.#onsetMs, atMs: windowEndMs };
        }
        return first ? { type: 'onset', onsetMs: this.#onsetMs, atMs: windowEndMs } : null;
      }
      const onsetMs = this.#onsetMs;
      this.#onsetMs = -1;
      return onsetMs < 0 ? null : { type: 'dismissed', onsetMs, atMs: windowEndMs };
    }
    if (probability < this.#negThreshold) {
      if (this.#silenceFromMs < 0) this.#silenceFromMs = windowStartMs;
      if (windowEndMs - this.#silenceFromMs >= this.#opts.minSilenceMs)
        return this.#end(this.#silenceFromMs, windowEndMs, 'silence');
    } else if (probability >= this.#threshold) {
      this.#silenceFromMs = -1;
    }
    if (windowEndMs - this.#onsetMs >= this.#opts.maxUtteranceMs) {
      return this.#end(this.#silenceFromMs < 0 ? windowEndMs : this.#silenceFromMs, windowEndMs, 'max_length');
    }
    return null;
  }

  /** Back to idle, forgetting any run in progress. */
  reset(): void {
    this.#speaking = false;
    this.#onsetMs = -1;
    this.#silenceFromMs = -1;
  }

  #end(speechEndMs: number, atMs: number, reason: SpeechEndReason): SpeechDecision {
    const decision: SpeechDecision = { type: 'end', onsetMs: this.#onsetMs, speechEndMs, atMs, reason };
    this.reset();
    return decision;
  }
}

/**
 * RxJS form of `SpeechGate`: one probability per window in (window i ends at (i+1)·windowMs),
 * decisions out. One gate per subscription.
 */
export function gateSpeech(options: Partial<GateOptions>, windowMs: number): OperatorFunction<number, SpeechDecision> {
  return (probabilities) =>
    defer(() => {
      const gate = new SpeechGate(options, windowMs);
      let windows = 0;
      return probabilities.pipe(
        map((probability) => gate.push(probability, ++windows * windowMs)),
        filter((decision): decision is SpeechDecision => decision !== null),
      );
    });
}
