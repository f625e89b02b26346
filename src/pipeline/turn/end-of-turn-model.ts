/**
 * A model that reads the end of an utterance's audio and says how likely the speaker has finished
 * their turn (Pipecat's Smart Turn v3 in production). Consulted by endpointing at the short
 * silence; the session works without one.
 */
export interface EndOfTurnModel {
  /** What the model is, for logs and metrics. */
  readonly label: string;
  /**
   * Probability (0–1) that the turn is complete, from the utterance's last seconds of 16 kHz mono
   * PCM16 audio (the model reads at most its own window, e.g. 8 s; shorter audio is padded).
   */
  endOfTurn(audio: Int16Array, signal?: AbortSignal): Promise<number>;
}
