/** The voice pipeline: frames, WAV, resampling, Silero VAD, the microphone graph and the reply graph. */
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
export { defaultSileroModelPath, SileroModel } from './vad/silero-model.js';
export { SileroVad, type SileroVadLoadOptions } from './vad/silero-vad.js';
export { gateSpeech, SpeechGate, type SpeechDecision, type SpeechEndReason } from './vad/speech-gate.js';
export { VadInputError, VadStream, type VadSink, type VadStreamOptions } from './vad/vad-stream.js';
export { listen, processBacklog, type HeardEvent, type ListenOptions } from './listen.js';
export { defaultIntakeLimits, type IntakeLimits, type IntakeStats, type OverrunReason } from './intake/limits.js';
export { reply, type ReplyEvent, type ReplySource, type ReplyStages } from './reply/reply.js';
export {
  defaultPlayoutTiming,
  playout,
  type PlayoutEvent,
  type PlayoutOptions,
  type SpeechChunk,
} from './reply/playout.js';
export { SentenceSplitter, splitSentences } from './reply/sentences.js';
export { StageFailure, type ReplyStage } from './reply/stage-failure.js';
export { abortable } from './reply/abortable.js';
