/** The audio bench/vad.ts feeds both VADs: the committed espeak-ng fixtures end to end, repeated. */
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { readWav } from '../../src/audio/wav.js';

export const vadBenchFixtures = ['hello.wav', 'two-utterances.wav', 'interrupt.wav'];

export function fixturePath(name: string): string {
  return new URL(`../../test/fixtures/audio/${name}`, import.meta.url).pathname;
}

export async function loadVadBenchAudio(repeats: number): Promise<AudioFrame> {
  const clips = await Promise.all(vadBenchFixtures.map((f) => readWav(fixturePath(f))));
  const one = clips.reduce((n, c) => n + c.samples.length, 0);
  const samples = new Int16Array(one * repeats);
  let at = 0;
  for (let r = 0; r < repeats; r++) {
    for (const c of clips) {
      samples.set(c.samples, at);
      at += c.samples.length;
    }
  }
  return { samples, sampleRate: 16000 };
}

/** One measured pass: process CPU (user + system, all threads) and wall time. */
export interface VadPass {
  cpuMs: number;
  wallMs: number;
  starts: number;
}

export async function measurePass(run: () => Promise<number>): Promise<VadPass> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const starts = await run();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs, starts };
}
