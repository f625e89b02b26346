/**
 * Audio frames on the pipeline: mono PCM16 with an explicit sample rate. A frame's `samples` may be
 * a view into a larger buffer (a transport's packet, a WAV file, a ring buffer): stages never copy a
 * frame to pass it on, and never keep one past the call that received it unless they say so.
 */
export interface AudioFrame {
  /** Mono signed 16-bit samples. */
  samples: Int16Array;
  /** Samples per second (Hz). */
  sampleRate: number;
}

/** Duration of a frame in ms. */
export function frameDurationMs(frame: AudioFrame): number {
  return (frame.samples.length * 1000) / frame.sampleRate;
}

/** Samples in `ms` of audio at `sampleRate` (rounded down). */
export function samplesForMs(ms: number, sampleRate: number): number {
  return Math.floor((ms * sampleRate) / 1000);
}

const int16Scale = 1 / 32768;

/**
 * Writes `src` as float32 in [-1, 1) into `dst` at `dstOffset`, in place: the audio path converts
 * into preallocated buffers (the model's input tensor), never into fresh arrays.
 */
export function int16ToFloat32Into(src: Int16Array, dst: Float32Array, dstOffset = 0): void {
  if (dstOffset + src.length > dst.length) {
    throw new RangeError(`int16ToFloat32Into: ${src.length} samples do not fit at ${dstOffset} in ${dst.length}`);
  }
  for (let i = 0; i < src.length; i++) dst[dstOffset + i] = src[i]! * int16Scale;
}

/** Float32 samples in [-1, 1] to a new PCM16 array (clamped); for TTS output, not the per-frame path. */
export function float32ToInt16(src: Float32Array): Int16Array {
  const out = new Int16Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const v = Math.max(-1, Math.min(1, src[i]!));
    out[i] = v < 0 ? Math.round(v * 32768) : Math.round(v * 32767);
  }
  return out;
}

/**
 * Cuts `audio` into frames of `frameSamples` (the last one may be shorter). The frames are views
 * into `audio`, not copies: for feeding a file to the pipeline as a transport would.
 */
export function sliceFrames(audio: AudioFrame, frameSamples: number): AudioFrame[] {
  if (!Number.isInteger(frameSamples) || frameSamples <= 0)
    throw new RangeError('sliceFrames: frameSamples must be a positive integer');
  const frames: AudioFrame[] = [];
  for (let at = 0; at < audio.samples.length; at += frameSamples) {
    frames.push({ samples: audio.samples.subarray(at, at + frameSamples), sampleRate: audio.sampleRate });
  }
  return frames;
}
