/**
 * The conversation bench/voice (c) streams in every session: whole questions in four flite
 * voices (so that smart endpointing waits its 300 ms question row once they are recognised), each
 * followed by a pause while the agent would speak, over a quiet noise floor. Generated at run time
 * and written to a WAV file the client process reads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '../../src/audio/wav.js';
import { fliteSay, type FliteVoice } from '../../test/support/flite-speech.js';
import { noiseInto } from '../lib/noise-floor.js';

export const talkQuestions: readonly string[] = [
  'what time do you open tomorrow',
  'can i book a table for four people on friday evening',
  'where is the nearest pharmacy',
  'how much does the large pizza cost',
  'do you have any rooms available next weekend',
  'is the museum open on sunday',
];
const voices: readonly FliteVoice[] = ['slt', 'rms', 'awb', 'kal16'];
const rate = 16_000;
const leadMs = 500;
/** The pause after a question: the agent's answer being heard. Speech is then ~40 % of the clip. */
const pauseMs = (speechMs: number) => Math.max(1_800, 1.5 * speechMs);

export interface TalkClip {
  /** The WAV file (16 kHz mono). */
  path: string;
  durationMs: number;
  speechMs: number;
  questions: readonly string[];
  /** Per question: index of the `frameMs` frame holding its last speech sample. */
  speechEndFrames: number[];
  /** The first question's audio, padded (warms the decoders). */
  firstQuestion: Int16Array;
  remove: () => void;
}

export function writeTalkClip(frameMs: number): TalkClip {
  const spoken = talkQuestions.map((q, i) => fliteSay(q, voices[i % voices.length]!));
  const pauses = spoken.map((s) => Math.round((pauseMs((s.length * 1000) / rate) * rate) / 1000));
  const lead = (leadMs * rate) / 1000;
  const total = lead + spoken.reduce((n, s, i) => n + s.length + pauses[i]!, 0);
  const samples = new Int16Array(total);
  const frame = (rate * frameMs) / 1000;
  const speechEndFrames: number[] = [];
  let at = lead;
  noiseInto(samples, 0, lead, 0);
  spoken.forEach((s, i) => {
    samples.set(s, at);
    at += s.length;
    speechEndFrames.push(Math.floor((at - 1) / frame));
    noiseInto(samples, at, at + pauses[i]!, i + 1);
    at += pauses[i]!;
  });
  const dir = mkdtempSync(join(tmpdir(), 'parley-talk-'));
  const path = join(dir, 'talk.wav');
  writeFileSync(path, encodeWav({ samples, sampleRate: rate }));
  return {
    path,
    durationMs: (total * 1000) / rate,
    speechMs: (spoken.reduce((n, s) => n + s.length, 0) * 1000) / rate,
    questions: talkQuestions,
    speechEndFrames,
    firstQuestion: samples.slice(0, lead + spoken[0]!.length + 3_200),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
