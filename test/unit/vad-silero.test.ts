/**
 * The real Silero v5 model (the file shipped in @livekit/agents-plugin-silero) on real espeak-ng
 * speech (test/fixtures/audio, made by make-fixtures.sh).
 */
import { firstValueFrom, from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceFrames, type AudioFrame } from '../../src/audio/audio-frame.js';
import { resampleTo } from '../../src/audio/resample.js';
import { detectSpeech } from '../../src/pipeline/vad/detect-speech.js';
import type { VadEvent } from '../../src/pipeline/vad/events.js';
import type { VadOptions } from '../../src/pipeline/vad/options.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import { readWav } from '../../src/audio/wav.js';

const fixture = (name: string) => readWav(new URL(`../fixtures/audio/${name}`, import.meta.url).pathname);

let vad: SileroVad;
beforeAll(async () => {
  vad = await SileroVad.load();
});
afterAll(async () => {
  await vad.close();
});

function runAll(audio: AudioFrame, frameSamples: number, options: Partial<VadOptions> = {}): Promise<VadEvent[]> {
  return lastValueFrom(from(sliceFrames(audio, frameSamples)).pipe(detectSpeech(vad, options), toArray()));
}

/** The decisions, without the unconfirmed onsets (and their dismissals) in between. */
async function run(audio: AudioFrame, frameSamples: number, options: Partial<VadOptions> = {}): Promise<VadEvent[]> {
  const events = await runAll(audio, frameSamples, options);
  return events.filter((e) => e.type !== 'speech_onset' && e.type !== 'speech_dismissed');
}

/** Event types and times, with the utterance reduced to its length, for comparing runs. */
function summary(events: VadEvent[]): unknown[] {
  return events.map((e) => (e.type === 'speech_end' ? { ...e, audio: e.audio.length } : e));
}

/** Speech spans found by energy (10 ms blocks over RMS 300; gaps under 300 ms bridged), in ms. */
function energySpans(audio: AudioFrame): { startMs: number; endMs: number }[] {
  const block = audio.sampleRate / 100;
  const spans: { startMs: number; endMs: number }[] = [];
  for (let b = 0; b * block < audio.samples.length; b++) {
    let sum = 0;
    const part = audio.samples.subarray(b * block, (b + 1) * block);
    for (const s of part) sum += s * s;
    if (Math.sqrt(sum / part.length) < 300) continue;
    const last = spans.at(-1);
    if (last && b * 10 - last.endMs < 300) last.endMs = (b + 1) * 10;
    else spans.push({ startMs: b * 10, endMs: (b + 1) * 10 });
  }
  return spans;
}

describe('Silero VAD on real speech', () => {
  it('finds one utterance in hello.wav, starting at the speech onset', async () => {
    const audio = await fixture('hello.wav');
    const [speech] = energySpans(audio);
    const events = await run(audio, 320);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    const [start, end] = events as [
      Extract<VadEvent, { type: 'speech_start' }>,
      Extract<VadEvent, { type: 'speech_end' }>,
    ];
    expect(Math.abs(start.atMs - speech!.startMs)).toBeLessThanOrEqual(200);
    expect(Math.abs(end.atMs - speech!.endMs)).toBeLessThanOrEqual(300);
    expect(start.detectedAtMs - start.atMs).toBeGreaterThanOrEqual(100);
    expect(end.detectedAtMs - end.atMs).toBeGreaterThanOrEqual(550);
    expect(end.reason).toBe('silence');
    expect(end.startAtMs).toBe(start.atMs);
    // the utterance: 300 ms of prefix, the speech, up to 300 ms of tail
    expect(end.sampleRate).toBe(16000);
    expect(end.durationMs).toBe(end.audio.length / 16);
    expect(end.durationMs).toBeGreaterThanOrEqual(end.atMs - end.startAtMs + 300);
    expect(end.durationMs).toBeLessThanOrEqual(end.atMs - end.startAtMs + 600);
    // and it is the audio from the file at those times, not a copy of something else
    const fromMs = end.startAtMs - 300;
    expect(Array.from(end.audio.subarray(0, 1600))).toEqual(
      Array.from(audio.samples.subarray(fromMs * 16, fromMs * 16 + 1600)),
    );
  });

  it('announces each utterance at its first speech window (speech_onset), min_speech before speech_start', async () => {
    const audio = await fixture('hello.wav');
    const events = await runAll(audio, 320);
    const onset = events.find((e) => e.type === 'speech_onset');
    const start = events.find((e) => e.type === 'speech_start');
    expect(events.indexOf(onset!)).toBeLessThan(events.indexOf(start!));
    expect(onset!.atMs).toBe(start!.atMs);
    expect(onset!.detectedAtMs).toBe(onset!.atMs + 32);
    expect(start!.detectedAtMs - onset!.detectedAtMs).toBeGreaterThanOrEqual(100 - 32);
    // every onset is either confirmed (speech_start at the same onset) or dismissed
    for (const o of events.filter((e) => e.type === 'speech_onset')) {
      const next = events[events.indexOf(o) + 1];
      expect(['speech_start', 'speech_dismissed']).toContain(next?.type);
      expect(next!.atMs).toBe(o.atMs);
    }
  });

  it('finds two utterances in two-utterances.wav', async () => {
    const audio = await fixture('two-utterances.wav');
    const spans = energySpans(audio);
    expect(spans).toHaveLength(2);
    const events = await run(audio, 320);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
    const starts = events.filter((e) => e.type === 'speech_start');
    // the VAD's onset is never before the energy onset and at most a few windows after it
    starts.forEach((s, i) => expect(s.atMs - spans[i]!.startMs).toBeGreaterThanOrEqual(-100));
    starts.forEach((s, i) => expect(s.atMs - spans[i]!.startMs).toBeLessThanOrEqual(350));
  });

  it('finds the short phrase in interrupt.wav after its leading second of silence', async () => {
    const audio = await fixture('interrupt.wav');
    const events = await run(audio, 320);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    expect(Math.abs(events[0]!.atMs - energySpans(audio)[0]!.startMs)).toBeLessThanOrEqual(200);
  });

  it('emits nothing for silence', async () => {
    expect(await run(await fixture('silence-3s.wav'), 320)).toEqual([]);
  });

  it('gives the same events whatever the frame length (320, 1600, 511 samples)', async () => {
    const audio = await fixture('two-utterances.wav');
    const reference = summary(await run(audio, 320));
    expect(summary(await run(audio, 1600))).toEqual(reference);
    expect(summary(await run(audio, 511))).toEqual(reference);
  });

  it('cuts an utterance at maxUtteranceMs', async () => {
    const audio = await fixture('hello.wav');
    const events = await run(audio, 320, { maxUtteranceMs: 1000 });
    const ends = events.filter((e) => e.type === 'speech_end');
    expect(ends.length).toBeGreaterThanOrEqual(2);
    expect(ends[0]!.reason).toBe('max_length');
    expect(ends[0]!.detectedAtMs - ends[0]!.startAtMs).toBeGreaterThanOrEqual(1000);
    expect(ends[0]!.detectedAtMs - ends[0]!.startAtMs).toBeLessThan(1000 + 32);
    for (const end of ends) expect(end.detectedAtMs - end.startAtMs).toBeLessThan(1000 + 32);
    // starts and ends alternate
    expect(events.map((e) => e.type).join(',')).toMatch(/^(speech_start,speech_end,?)+$/);
  });

  it('gives the same events for the 48 kHz file through resampleTo(16000)', async () => {
    const reference = await run(await fixture('hello.wav'), 320);
    const audio48 = await fixture('hello-48k.wav');
    const events = (
      await lastValueFrom(from(sliceFrames(audio48, 960)).pipe(resampleTo(16000), detectSpeech(vad), toArray()))
    ).filter((e) => e.type === 'speech_start' || e.type === 'speech_end');
    expect(events.map((e) => e.type)).toEqual(reference.map((e) => e.type));
    events.forEach((e, i) => expect(Math.abs(e.atMs - reference[i]!.atMs)).toBeLessThanOrEqual(64));
  });

  it('runs streams in parallel on the shared session without them interfering', async () => {
    const hello = await fixture('hello.wav');
    const two = await fixture('two-utterances.wav');
    const alone = [summary(await run(hello, 320)), summary(await run(two, 320)), summary(await run(hello, 1600))];
    const together = await Promise.all([run(hello, 320), run(two, 320), run(hello, 1600)]);
    expect(together.map(summary)).toEqual(alone);
  });

  it('emits per-window inference events when asked', async () => {
    const audio = await fixture('silence-3s.wav');
    const events = await run(audio, 320, { emitInference: true });
    expect(events).toHaveLength(Math.floor(48000 / 512));
    expect(events.every((e) => e.type === 'inference' && e.probability < 0.5 && !e.speaking)).toBe(true);
  });

  it('errors the stream on frames that are not 16 kHz', async () => {
    const frame: AudioFrame = { samples: new Int16Array(480), sampleRate: 48000 };
    await expect(firstValueFrom(from([frame]).pipe(detectSpeech(vad)))).rejects.toThrow(
      /needs 16000 Hz frames, got 48000 Hz/,
    );
  });
});
