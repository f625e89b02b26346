/** The stages of a reply, in order. */
export type ReplyStage = 'transcribe' | 'answer' | 'synthesize';

/**
 * A stage could not do its part for an expected reason (the STT, LLM, TTS or webhook failed,
 * timed out or answered nonsense), already recorded as an error record: the turn ends in silence
 * and the session carries on. Any other error in a stage is a bug and ends the session.
 */
export class StageFailure extends Error {
  override readonly name = 'StageFailure';

  constructor(
    readonly stage: ReplyStage,
    message: string,
    /** The error record written for it; null when it could not be written. */
    readonly errorId: string | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
