/**
 * How bench/stt.ts drives each engine over one utterance, and several streams at once. Every
 * figure is taken from the moment the utterance's audio is complete (its last window written, or
 * the whole clip handed over), which is when the VAD ends the segment in a session.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import type { SttProvider, SttStream } from '../../src/providers/stt.js';
import { threadCpuMs } from '../lib/cpu-time.js';
import { audioMs, sttBenchRate, type Utterance } from './corpus.js';

/** 32 ms at 16 kHz: the VAD window a session's stream is written in. */
export const windowSamples = 512;

export const request = { sampleRate: sttBenchRate, model: 'en-us', language: null };

export interface Sample {
  said: string;
  heard: string;
  /** Audio complete → final transcript, ms. */
  afterEndMs: number;
  audioMs: number;
  /** The stream gave up (behind real time, or no decoder) and the utterance was transcribed whole. */
  fellBack: boolean;
}

/** CPU of the whole process (every thread) over `run`, ms. */
export async function withCpu<T>(run: () => Promise<T>): Promise<{ value: T; cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t0 };
}

/**
 * Streams `u` in writes of `windows` 512-sample windows (a session writes one), at real-time pace
 * (`paced`) or all at once, then finishes. A stream that gave up is transcribed whole, as a session
 * does; the wait includes that.
 */
export async function streamOne(stt: PocketsphinxStt, u: Utterance, paced: boolean, windows = 1): Promise<Sample> {
  const stream = stt.openStream(request);
  if (stream === null) return { ...(await wholeOne(stt, u)), fellBack: true };
  const t0 = performance.now();
  const chunk = windows * windowSamples;
  for (let at = 0, k = 0; at < u.audio.length; at += chunk, k++) {
    if (paced) {
      const wait = t0 + ((k + 1) * chunk * 1000) / sttBenchRate - performance.now(); // once the chunk is spoken
      if (wait > 0) await sleep(wait);
    }
    stream.write(u.audio.subarray(at, at + chunk));
  }
  const end = performance.now();
  const heard = await finishOrWhole(stream, stt, u);
  return {
    said: u.text,
    heard: heard.text,
    afterEndMs: performance.now() - end,
    audioMs: audioMs(u),
    fellBack: heard.fellBack,
  };
}

async function finishOrWhole(
  stream: SttStream,
  stt: SttProvider,
  u: Utterance,
): Promise<{ text: string; fellBack: boolean }> {
  if (!stream.healthy) {
    stream.cancel();
    return { text: await stt.transcribe({ ...request, audio: u.audio }), fellBack: true };
  }
  return { text: await stream.finish(), fellBack: false };
}

/** The whole utterance handed over at once, after it ended: the wait is the whole decode. */
export async function wholeOne(stt: SttProvider, u: Utterance): Promise<Sample> {
  const t0 = performance.now();
  const heard = await stt.transcribe({ ...request, audio: u.audio });
  return { said: u.text, heard, afterEndMs: performance.now() - t0, audioMs: audioMs(u), fellBack: false };
}

export interface ConcurrentRun {
  samples: Sample[];
  cpuMs: number;
  /** The bench's main thread alone (the writer, and the provider's side of each call). */
  mainThreadCpuMs: number;
  wallMs: number;
}

/**
 * `lanes` streams at once: lane l streams utterances l, l + lanes, … back to back (continuous
 * speech, the worst duty cycle), lanes starting `staggerMs × l / lanes` apart.
 */
export async function concurrentStreams(
  stt: PocketsphinxStt,
  corpus: readonly Utterance[],
  lanes: number,
  paced: boolean,
  staggerMs = 1_000,
): Promise<ConcurrentRun> {
  const main0 = threadCpuMs(process.pid);
  const { value, cpuMs, wallMs } = await withCpu(() =>
    Promise.all(
      Array.from({ length: lanes }, async (_, l) => {
        if (paced) await sleep((staggerMs * l) / lanes);
        const out: Sample[] = [];
        for (let i = l; i < corpus.length; i += lanes) out.push(await streamOne(stt, corpus[i]!, paced));
        return out;
      }),
    ),
  );
  return { samples: value.flat(), cpuMs, mainThreadCpuMs: threadCpuMs(process.pid) - main0, wallMs };
}

/** Loads every decoder (a stream on each at once), so no measured utterance waits for a model load. */
export async function warmDecoders(stt: PocketsphinxStt, decoders: number, audio: Int16Array): Promise<void> {
  const streams = Array.from({ length: decoders }, () => stt.openStream(request));
  for (const s of streams) s?.write(audio.subarray(0, sttBenchRate));
  await Promise.all(streams.map((s) => s?.finish()));
}
