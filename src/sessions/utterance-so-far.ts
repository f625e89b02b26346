import type { HeardEvent } from '../pipeline/listen.js';

/** The most audio kept: 10 s at 16 kHz (past it, speech over the agent is decided at its end). */
const maxSamples = 16 * 10_000;

/**
 * The audio of the possible utterance being spoken, as the VAD hands it on (from its onset, prefix
 * padding included, until it is dismissed or its segment ends), for an STT that cannot decode as
 * the user speaks: while the user talks over the agent, the session transcribes it at checkpoints
 * (voice-checks.ts). One buffer for the session, grown by doubling, at most `maxSamples`.
 */
export class UtteranceSoFar {
  #buffer = new Int16Array(16 * 1_000);
  #length = 0;

  /** The VAD's audio of a possible utterance (a view, copied now). */
  readonly audio = (samples: Int16Array): void => {
    const room = Math.min(samples.length, maxSamples - this.#length);
    if (room <= 0) return;
    if (this.#length + room > this.#buffer.length) {
      const grown = new Int16Array(Math.min(maxSamples, Math.max(this.#buffer.length * 2, this.#length + room)));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(samples.subarray(0, room), this.#length);
    this.#length += room;
  };

  /** The microphone graph's events: a dismissed onset or the end of a segment starts afresh. */
  heard(event: HeardEvent): void {
    if (event.type === 'speech_dismissed' || event.type === 'speech_end') this.#length = 0;
  }

  /** A copy of the audio so far (empty between utterances). */
  samples(): Int16Array {
    return this.#buffer.slice(0, this.#length);
  }

  /** Forgets the audio (the session ended). */
  close(): void {
    this.#length = 0;
  }
}
