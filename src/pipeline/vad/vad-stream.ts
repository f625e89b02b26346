/**
 * One VAD stream: 16 kHz frames of any length in, `VadEvent`s out. Incoming samples go into one
 * preallocated ring (long enough for prefix padding plus the longest utterance); 512-sample windows
 * are converted from the ring straight into the model's input buffer, so no frame is copied. The
 * utterance handed out at `speech_end` is the only allocation (one per utterance).
 */
import { int16ToFloat32Into, samplesForMs, type AudioFrame } from '../audio-frame.js';
import { Int16Ring } from '../ring-buffer.js';
import type { VadEvent } from './events.js';
import { resolveVadOptions, type VadOptions } from './options.js';
import { vadContextSamples, vadSampleRate, vadWindowSamples, type SileroState } from './silero-format.js';
import type { SileroVad } from './silero-vad.js';
import { SpeechGate, type SpeechDecision } from './speech-gate.js';

export class VadInputError extends Error {
  override readonly name = 'VadInputError';
}

const noEvents: readonly VadEvent[] = Object.freeze([]);
const samplesPerMs = vadSampleRate / 1000;
const windowMs = vadWindowSamples / samplesPerMs;

export class VadStream {
  readonly options: Readonly<VadOptions>;
  readonly #vad: SileroVad;
  readonly #state: SileroState;
  readonly #ring: Int16Ring;
  readonly #gate: SpeechGate;
  readonly #prefixSamples: number;
  /** Absolute index of the first sample not yet run through the model. */
  #processed = 0;
  /** Serialises `push` calls: one window at a time per stream, in order. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(vad: SileroVad, options: Partial<VadOptions>) {
    this.options = Object.freeze(resolveVadOptions(options));
    this.#vad = vad;
    this.#state = vad.newState();
    this.#gate = new SpeechGate(this.options, windowMs);
    this.#prefixSamples = samplesForMs(this.options.prefixPaddingMs, vadSampleRate);
    // utterance (prefix + max length) + one window of rounding + up to two windows not yet processed
    this.#ring = new Int16Ring(
      this.#prefixSamples + samplesForMs(this.options.maxUtteranceMs, vadSampleRate) + 3 * vadWindowSamples,
    );
  }

  /** Whether the stream is inside an utterance (between `speech_start` and `speech_end`). */
  get speaking(): boolean {
    return this.#gate.speaking;
  }

  /** Stream time in ms of the audio run through the model so far. */
  get processedMs(): number {
    return this.#processed / samplesPerMs;
  }

  /**
   * Feeds one 16 kHz frame; resolves with the events it completed (usually none). Calls may overlap:
   * they are queued and run in order. The frame is read before the promise resolves and not kept.
   */
  push(frame: AudioFrame): Promise<readonly VadEvent[]> {
    const run = this.#tail.then(() => this.#process(frame));
    this.#tail = run.catch(() => undefined); // the caller gets the rejection from `run`; the queue goes on
    return run;
  }

  async #process(frame: AudioFrame): Promise<readonly VadEvent[]> {
    if (frame.sampleRate !== vadSampleRate) {
      throw new VadInputError(
        `VAD needs ${vadSampleRate} Hz frames, got ${frame.sampleRate} Hz (put resampleTo(${vadSampleRate}) before it)`,
      );
    }
    let events: VadEvent[] | undefined;
    const samples = frame.samples;
    // write at most one window at a time so unprocessed samples never exceed the ring's slack
    for (let at = 0; at < samples.length; at += vadWindowSamples) {
      this.#ring.write(samples.subarray(at, at + vadWindowSamples));
      while (this.#ring.written - this.#processed >= vadWindowSamples) {
        const from = this.#processed;
        this.#ring.read(from, from + vadWindowSamples, (view, offset) =>
          int16ToFloat32Into(view, this.#state.input, vadContextSamples + offset),
        );
        const probability = await this.#vad.infer(this.#state);
        this.#processed += vadWindowSamples;
        const atMs = this.#processed / samplesPerMs;
        if (this.options.emitInference)
          (events ??= []).push({ type: 'inference', atMs, probability, speaking: this.#gate.speaking });
        const decision = this.#gate.push(probability, atMs);
        if (decision) (events ??= []).push(this.#toEvent(decision));
      }
    }
    return events ?? noEvents;
  }

  #toEvent(decision: SpeechDecision): VadEvent {
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
