/** The Silero VAD v5 model's input format at 16 kHz (what every stream's buffers are sized by). */

/** Model sample rate; feed streams 16 kHz frames (see `resampleTo`). */
export const vadSampleRate = 16_000;
/** New samples per inference window (32 ms at 16 kHz). */
export const vadWindowSamples = 512;
/** Samples of the previous window prepended to each input. */
export const vadContextSamples = 64;
/** One input row: [context | window]. */
export const vadInputSamples = vadContextSamples + vadWindowSamples;
/** One stream's RNN state: h (128) then c (128); the model takes them as [2, B, 128]. */
export const vadStateSize = 2 * 128;

/** The state one stream's windows need: buffers it owns and reuses for every window. */
export interface SileroState {
  /** [context (64) | window (512)] as float32; the stream writes the window, the batcher rolls the context. */
  readonly input: Float32Array;
  /** RNN state [h | c], carried from window to window. */
  readonly rnn: Float32Array;
}

export function newSileroState(): SileroState {
  return { input: new Float32Array(vadInputSamples), rnn: new Float32Array(vadStateSize) };
}

/**
 * After a window is scored, its last 64 samples become the next window's context (input[512..576)
 * → input[0..64)). The batcher does this after inference, a stream after a window it skipped.
 */
export function rollContext(state: SileroState): void {
  state.input.copyWithin(0, vadWindowSamples, vadInputSamples);
}
