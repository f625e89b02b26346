/**
 * One VAD stream: 16 kHz frames of any length in, `VadEvent`s out through its sink. Incoming
 * samples go into one ring allocated once, sized by the agent's settings (prefix padding + longest
 * utterance + the most audio allowed to wait for the model); each 512-sample window is converted
 * from the ring straight into the stream's model input and handed to the batcher, one window at a
 * time (the next needs the state this one produces). Pushing a frame allocates nothing; the
 * utterance handed out at `speech_end` is the only allocation (one per utterance).
 *
 * Silence floor (silence-floor.ts): while no speech is under way, a window quieter than the floor
 * (its level taken in the pass that converts it) is scored 0 at once, without the model. Silero
 * scores such windows ~0, and any score below the threshold leaves the gate as it was, so only the
 * RNN state differs: it stays as the last real window left it instead of walking on through the
 * silence (Silero's state drifts on through silence, it does not settle), which can move the next
 * decision by a window, a few where a window sits at the threshold. Inside an utterance, or once a
 * window has reached the threshold, every window goes to the model.
 */
import { samplesForMs, type AudioFrame } from '../../audio/audio-frame.js';
import { Int16Ring } from '../../audio/ring-buffer.js';
import type { VadEvent } from './events.js';
import { resolveVadOptions, type VadOptions } from './options.js';
import { defaultSilenceFloorDbfs, silenceFloorEnergy, type SilenceFloorDbfs } from './silence-floor.js';
import {
  newSileroState,
  rollContext,
  vadContextSamples,
  vadSampleRate,
  vadWindowSamples,
  type SileroState,
} from './silero-format.js';
import { SpeechGate, type SpeechDecision } from './speech-gate.js';
import type { BatchRow, VadBatcher } from './vad-batcher.js';

export class VadInputError extends Error {
  override readonly name = 'VadInputError';
}

/** Where a stream's results go (called on the event loop, in window order). */
export interface VadSink {
  event(event: VadEvent): void;
  /** `samples` more of the pushed audio went through the model (so a backlog can give them back). */
  processed?(samples: number): void;
  /**
   * The audio of a possible utterance as it is scored, for a recogniser that decodes while the
   * user speaks: from the onset (with `prefixPaddingMs` before it) one call per window, the
   * closing silence included, each call before the window's event. `samples` is a view into the
   * stream's ring, valid only during the call. `atMs`: stream time of `samples[0]`.
   */
  audio?(samples: Int16Array, atMs: number): void;
  /** The model failed (its worker died): the stream is over. */
  error(err: Error): void;
}

export interface VadStreamOptions extends VadOptions {
  /** Audio allowed to wait for the model, at most; `push` refuses frames beyond it. */
  maxPendingMs: number;
  /** Windows quieter than this outside an utterance skip the model (process-wide: SileroVad passes its own). */
  silenceFloorDbfs: SilenceFloorDbfs;
}

/** Default bound on a stream's audio waiting for the model: the intake's session backlog (6 s). */
export const defaultMaxPendingMs = 6_000;

const samplesPerMs = vadSampleRate / 1000;
const windowMs = vadWindowSamples / samplesPerMs;

export class VadStream implements BatchRow {
  readonly options: Readonly<VadOptions>;
  readonly state: SileroState = newSileroState();
  readonly #batcher: VadBatcher;
  readonly #sink: VadSink;
  readonly #ring: Int16Ring;
  readonly #gate: SpeechGate;
  readonly #prefixSamples: number;
  readonly #maxPending: number;
  /** Window energy below which a window outside an utterance is scored 0 without the model. */
  readonly #silentBelow: number;
  /** Absolute index of the first sample not yet scored (the window in the batcher starts here). */
  #processed = 0;
  #submitted = false;
  #closed = false;
  /** Whether the windows go to `sink.audio` (from an onset until its dismissal or the end of speech). */
  #tapping = false;
  #idle: (() => void) | undefined;

  constructor(batcher: VadBatcher, options: Partial<VadStreamOptions>, sink: VadSink) {
    const { maxPendingMs = defaultMaxPendingMs, silenceFloorDbfs = defaultSilenceFloorDbfs, ...vadOptions } = options;
    this.options = Object.freeze(resolveVadOptions(vadOptions));
    this.#silentBelow = silenceFloorEnergy(silenceFloorDbfs);
    this.#batcher = batcher;
    this.#sink = sink;
    batcher.join();
    this.#gate = new SpeechGate(this.options, windowMs);
    this.#prefixSamples = samplesForMs(this.options.prefixPaddingMs, vadSampleRate);
    this.#maxPending = Math.max(vadWindowSamples, samplesForMs(maxPendingMs, vadSampleRate));
    // an utterance (prefix + max length) + one window of rounding + the audio waiting for the model
    this.#ring = new Int16Ring(
      this.#prefixSamples +
        samplesForMs(this.options.maxUtteranceMs, vadSampleRate) +
        vadWindowSamples +
        this.#maxPending,
    );
  }

  /** Samples of the ring: what this stream holds in memory (2 bytes each). */
  get capacity(): number {
    return this.#ring.capacity;
  }

  /** Whether the stream is inside an utterance (between `speech_start` and `speech_end`). */
  get speaking(): boolean {
    return this.#gate.speaking;
  }

  /** Stream time in ms of the audio scored so far. */
  get processedMs(): number {
    return this.#processed / samplesPerMs;
  }

  /** Samples pushed and not yet scored. */
  get pending(): number {
    return this.#ring.written - this.#processed;
  }

  /** Samples waiting for the model: the whole windows not yet scored (a part-window waits for audio, not for the model). */
  get waiting(): number {
    const pending = this.pending;
    return pending - (pending % vadWindowSamples);
  }

  /**
   * Feeds one 16 kHz frame (read now, not kept). Returns false, taking nothing, when the frame
   * would put more than `maxPendingMs` of audio in wait for the model (the model is behind).
   */
  push(frame: AudioFrame): boolean {
    if (frame.sampleRate !== vadSampleRate) {
      throw new VadInputError(
        `VAD needs ${vadSampleRate} Hz frames, got ${frame.sampleRate} Hz (put resampleTo(${vadSampleRate}) before it)`,
      );
    }
    if (this.#closed) return false;
    if (this.pending + frame.samples.length > this.#maxPending) return false;
    this.#ring.write(frame.samples);
    this.#next();
    return true;
  }

  /** Resolves once every whole window pushed so far has been scored. */
  whenIdle(): Promise<void> {
    if (!this.#submitted || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#idle;
      this.#idle = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Leaves the batcher; a window already running is answered and ignored. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#batcher.leave(this);
    this.#settleIdle();
  }

  scored(probability: number): void {
    this.#submitted = false;
    if (this.#closed) return;
    this.#score(probability);
    this.#next();
  }

  failed(err: Error): void {
    this.#submitted = false;
    if (this.#closed) return;
    this.close();
    this.#sink.error(err);
  }

  /**
   * Scores the whole windows due, unless one is in the batcher already: windows under the silence
   * floor while the gate is idle at once (a loop: a backlog of them clears in one call), then the
   * first other one goes to the batcher, which calls `scored` back.
   */
  #next(): void {
    while (!this.#submitted && !this.#closed) {
      const from = this.#processed;
      if (this.#ring.written - from < vadWindowSamples) {
        this.#settleIdle();
        return;
      }
      const energy = this.#ring.toFloat32(from, from + vadWindowSamples, this.state.input, vadContextSamples);
      if (energy >= this.#silentBelow || !this.#gate.idle) {
        this.#submitted = true;
        this.#batcher.submit(this);
        return;
      }
      rollContext(this.state); // as after inference; the RNN state stays as it is
      this.#batcher.countSkipped();
      this.#score(0);
    }
  }

  /** The window at `#processed` scored `probability`: inference event, gate, sink. */
  #score(probability: number): void {
    this.#processed += vadWindowSamples;
    const atMs = this.#processed / samplesPerMs;
    if (this.options.emitInference)
      this.#sink.event({ type: 'inference', atMs, probability, speaking: this.#gate.speaking });
    const decision = this.#gate.push(probability, atMs);
    if (this.#sink.audio !== undefined) this.#tap(decision);
    if (decision) this.#sink.event(this.#toEvent(decision));
    this.#sink.processed?.(vadWindowSamples);
  }

  /** Hands the scored window (and at an onset its prefix padding) to `sink.audio`. */
  #tap(decision: SpeechDecision | null): void {
    const to = this.#processed;
    let from = to - vadWindowSamples;
    if (!this.#tapping && (decision?.type === 'onset' || decision?.type === 'start')) {
      this.#tapping = true;
      from = Math.max(this.#ring.oldest, Math.round(decision.onsetMs * samplesPerMs) - this.#prefixSamples);
    }
    if (this.#tapping)
      this.#ring.read(from, to, (view, offset) => this.#sink.audio!(view, (from + offset) / samplesPerMs));
    if (decision?.type === 'dismissed' || decision?.type === 'end') this.#tapping = false;
  }

  #settleIdle(): void {
    const idle = this.#idle;
    this.#idle = undefined;
    idle?.();
  }

  #toEvent(decision: SpeechDecision): VadEvent {
    if (decision.type === 'onset') return { type: 'speech_onset', atMs: decision.onsetMs, detectedAtMs: decision.atMs };
    if (decision.type === 'dismissed')
      return { type: 'speech_dismissed', atMs: decision.onsetMs, detectedAtMs: decision.atMs };
    if (decision.type === 'start') return { type: 'speech_start', atMs: decision.onsetMs, detectedAtMs: decision.atMs };
    const onset = Math.round(decision.onsetMs * samplesPerMs);
    const from = Math.max(this.#ring.oldest, onset - this.#prefixSamples);
    const to = Math.min(this.#processed, Math.round(decision.speechEndMs * samplesPerMs) + this.#prefixSamples);
    const audio = this.#ring.copy(from, to);
    return {
      type: 'speech_end',
      atMs: decision.speechEndMs,
      detectedAtMs: decision.atMs,
      startAtMs: decision.onsetMs,
      audio,
      sampleRate: vadSampleRate,
      durationMs: audio.length / samplesPerMs,
      reason: decision.reason,
    };
  }
}
