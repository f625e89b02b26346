/**
 * The conversation bench/recording.ts streams in every session: bench/voice (c)'s talk clip
 * (flite questions, each followed by a pause while the agent would speak, over a quiet noise
 * floor), cut after its first `questions` questions so that a quick run stays short.
 */
import { writeFileSync } from 'node:fs';
import { encodeWav, readWav } from '../../src/audio/wav.js';
import { writeTalkClip, type TalkClip } from '../voice/talk-clip.js';

/** Every question in the talk clip is followed by at least this much pause (talk-clip.ts). */
const minPauseMs = 1_800;

export function writeRecordingClip(frameMs: number, questions: number): Promise<TalkClip> {
  return trimmed(writeTalkClip(frameMs), frameMs, questions);
}

async function trimmed(clip: TalkClip, frameMs: number, questions: number): Promise<TalkClip> {
  if (questions >= clip.questions.length) return clip;
  const wav = await readWav(clip.path);
  const lastFrame = clip.speechEndFrames[questions - 1]!;
  const end = Math.round((((lastFrame + 1) * frameMs + minPauseMs) * wav.sampleRate) / 1000);
  const samples = wav.samples.slice(0, end);
  writeFileSync(clip.path, encodeWav({ samples, sampleRate: wav.sampleRate }));
  const durationMs = (samples.length * 1000) / wav.sampleRate;
  return {
    ...clip,
    durationMs,
    // speech share of the kept part: the full clip's share is close enough for a label
    speechMs: (clip.speechMs * durationMs) / clip.durationMs,
    questions: clip.questions.slice(0, questions),
    speechEndFrames: clip.speechEndFrames.slice(0, questions),
  };
}
