import { rms } from './pcm.js';

/** Latency of one answer as the client saw it. */
export interface TurnLatency {
  turn: number;
  /** From the end of the user's speech (spoken turn) or the text being sent (typed turn) to the first audio of the answer. */
  ms: number;
  from: 'speech_end' | 'text';
}

/** Frames louder than this (RMS, full scale 1) count as the user speaking: about -40 dBFS. */
const speechRms = 0.01;

/**
 * Measures each turn from the client's side: the last microphone frame with speech (or the moment
 * a text turn was sent) before the turn's transcript arrived, to the answer's `audio_start`.
 */
export class TurnLatencyMeter {
  private lastSpeechAt: number | null = null;
  private textSentAt: number | null = null;
  private readonly origins = new Map<number, { at: number; from: TurnLatency['from'] }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  microphoneFrame(frame: Int16Array): void {
    if (rms(frame) >= speechRms) this.lastSpeechAt = this.now();
  }

  textSent(): void {
    this.textSentAt = this.now();
  }

  transcript(turn: number): void {
    if (this.textSentAt !== null) {
      this.origins.set(turn, { at: this.textSentAt, from: 'text' });
      this.textSentAt = null;
    } else if (this.lastSpeechAt !== null) {
      this.origins.set(turn, { at: this.lastSpeechAt, from: 'speech_end' });
    }
  }

  /** The turn's latency once its first audio arrives; null when its start is unknown (greeting). */
  audioStart(turn: number): TurnLatency | null {
    const origin = this.origins.get(turn);
    if (origin === undefined) return null;
    this.origins.delete(turn);
    return { turn, ms: Math.round(this.now() - origin.at), from: origin.from };
  }
}
