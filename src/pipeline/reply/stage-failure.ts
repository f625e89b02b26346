/** The stages of a reply, in order. */
export type ReplyStage = 'transcribe' | 'answer' | 'synthesize';

/** The error record written for a failed stage: its id (null when it could not be written) and type. */
export interface FailureRecord {
  id: string | null;
  /** The record's type (`stt_error`, `llm_not_configured`, `webhook_timeout`, `tts_error`, `turn_error`, …). */
  type: string;
}

/**
 * A stage could not do its part for an expected reason (the STT, LLM, TTS or webhook failed,
 * timed out or answered nonsense), already recorded as an error record: the turn fails (the
 * user is told why, by the record's type, and hears the agent's fallback line when TTS still
 * works) and the session carries on. Any other error in a stage is a bug and ends the session.
 */
export class StageFailure extends Error {
  override readonly name = 'StageFailure';
  /** The error record written for it; null when it could not be written. */
  readonly errorId: string | null;
  /** The error record's type: what the user's `error` message carries as `reason`. */
  readonly reason: string;

  constructor(
    readonly stage: ReplyStage,
    message: string,
    record: FailureRecord,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.errorId = record.id;
    this.reason = record.type;
  }
}
