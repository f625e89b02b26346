/**
 * The audio bench/voice.ts streams, built the same way in the bench process and in its client
 * process (bench/lib/voice-load-side.ts), so that frame indices computed in one hold in the other.
 */
import { sliceFrames, type AudioFrame } from '../../src/audio/audio-frame.js';
import type { VadOptions } from '../../src/pipeline/vad/options.js';
import type { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import { readWav } from '../../src/audio/wav.js';

/** 16 kHz espeak-ng speech: ~0.5 s of silence, ~2.8 s of speech, ~1.4 s of silence. */
export const voiceBenchFixture = 'hello.wav';
export const voiceBenchRate = 16_000;

export async function loadVoiceBenchClip(): Promise<AudioFrame> {
  const clip = await readWav(new URL(`../../test/fixtures/audio/${voiceBenchFixture}`, import.meta.url).pathname);
  if (clip.sampleRate !== voiceBenchRate)
    throw new Error(`${voiceBenchFixture} is ${clip.sampleRate} Hz, not ${voiceBenchRate}`);
  return clip;
}

/** `clip` repeated end to end (whole repeats) until it lasts at least `minMs`. */
export function loopClip(clip: AudioFrame, minMs: number): AudioFrame {
  const minSamples = Math.ceil((minMs * clip.sampleRate) / 1000);
  const repeats = Math.max(1, Math.ceil(minSamples / clip.samples.length));
  const samples = new Int16Array(clip.samples.length * repeats);
  for (let r = 0; r < repeats; r++) samples.set(clip.samples, r * clip.samples.length);
  return { samples, sampleRate: clip.sampleRate };
}

/** `audio` as `frameMs` frames (views, the last one possibly shorter), as a client sends it. */
export function framesOf(audio: AudioFrame, frameMs: number): AudioFrame[] {
  return sliceFrames(audio, (audio.sampleRate * frameMs) / 1000);
}

/** What one VAD stream decides over a run of frames. */
export interface SpeechEnds {
  /** Index (into the frames, in push order) of the frame whose push produced each `speech_end`. */
  frames: number[];
  /** Index of the frame holding each utterance's end of speech (the VAD's `atMs`): where the user stopped. */
  spokenUntil: number[];
  speechStarts: number;
}

/**
 * Runs `frames` through a fresh VAD stream with the session's options, as a voice session does
 * (16 kHz in, no resampling), and returns which frame completed each end-of-speech decision. The
 * model is deterministic, so a session fed the same frames decides at the same frames: the client
 * can time from the moment it sent that frame.
 */
export async function speechEndFrames(
  vad: SileroVad,
  frames: AudioFrame[],
  options: Partial<VadOptions>,
): Promise<SpeechEnds> {
  const ends: number[] = [];
  const spokenUntil: number[] = [];
  /** Stream time (ms) at the end of each frame. */
  const frameEndsMs: number[] = [];
  let speechStarts = 0;
  let atMs = 0;
  let frame = 0;
  let failed: Error | undefined;
  const stream = vad.stream(options, {
    event(event) {
      if (event.type === 'speech_end') {
        ends.push(frame);
        spokenUntil.push(frameEndsMs.findIndex((end) => end >= event.atMs));
      } else if (event.type === 'speech_start') speechStarts++;
    },
    error: (err) => (failed = err),
  });
  for (; frame < frames.length; frame++) {
    atMs += (frames[frame]!.samples.length * 1000) / frames[frame]!.sampleRate;
    frameEndsMs.push(atMs);
    stream.push(frames[frame]!);
    await stream.whenIdle(); // events belong to the frame that completed their window
    if (failed) throw failed;
  }
  stream.close();
  return { frames: ends, spokenUntil, speechStarts };
}
