/** The audio half of the voice pipeline: frames, WAV, resampling and Silero VAD. */
export {
  float32ToInt16,
  frameDurationMs,
  int16ToFloat32Into,
  samplesForMs,
  sliceFrames,
  type AudioFrame,
} from './audio-frame.js';
export { ResampleInputError, resampleTo } from './resample.js';
export { Resampler } from './resampler.js';
export { Int16Ring } from './ring-buffer.js';
export { encodeWav, parseWav, readWav, WavFormatError } from './wav.js';
export { detectSpeech } from './vad/detect-speech.js';
export type { SpeechEndEvent, SpeechStartEvent, VadEvent, VadInferenceEvent } from './vad/events.js';
export { defaultVadOptions, resolveVadOptions, type VadOptions } from './vad/options.js';
export { vadSampleRate, vadWindowSamples } from './vad/silero-format.js';
export { defaultSileroModelPath, SileroVad, type SileroVadLoadOptions } from './vad/silero-vad.js';
export { gateSpeech, SpeechGate, type SpeechDecision, type SpeechEndReason } from './vad/speech-gate.js';
export { VadInputError, VadStream } from './vad/vad-stream.js';
