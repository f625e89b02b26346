/** The Silero VAD v5 model's input format at 16 kHz (what every stream's buffers are sized by). */

/** Model sample rate; feed streams 16 kHz frames (see `resampleTo`). */
export const vadSampleRate = 16_000;
/** New samples per inference window (32 ms at 16 kHz). */
export const vadWindowSamples = 512;
/** Samples of the previous window prepended to each input. */
export const vadContextSamples = 64;
/** RNN state shape [2, 1, 128]. */
export const vadStateSize = 2 * 128;

/** The state one model call needs: buffers a stream owns and reuses for every window. */
export interface SileroState {
  /** [context (64) | window (512)] as float32; the caller writes the window, the model rolls the context. */
  readonly input: Float32Array;
  /** RNN state, carried from window to window. */
  readonly rnn: Float32Array;
}
