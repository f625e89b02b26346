import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import { summarize } from '../lib/percentiles.js';
import { wordErrorRate } from '../../test/support/wer.js';
import type { Sample } from './engines.js';

export interface Latency {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface EngineRow {
  engine: string;
  utterances: number;
  /** Word error rate over every utterance; null where the weights are random. */
  wer: number | null;
  /** Process CPU (every thread) per second of audio transcribed. */
  cpu_ms_per_audio_s: number;
  /** Audio complete (last window written / clip handed over) → final transcript. */
  after_end_ms: Latency;
  /** after_end p50 ÷ the streaming row's. */
  p50_vs_streaming: number;
  fell_back: number;
  note: string;
}

export interface ConcurrencyRow {
  pace: 'real time' | 'as fast as decoded';
  threads: number;
  streams: number;
  utterances: number;
  wer: number;
  cpu_ms_per_audio_s: number;
  /** CPU ÷ wall: the process, and its main thread (the writer, the provider's side of the calls). */
  cores: number;
  main_thread_cores: number;
  /** Seconds of audio transcribed per wall-clock second, all streams together. */
  audio_s_per_wall_s: number;
  after_end_ms: Latency;
  fell_back: number;
}

export interface SttReport {
  bench: 'stt';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  corpus: { utterances: number; voices: string[]; speech_s: number; audio_s: number; lead_ms: number; tail_ms: number };
  passes: number;
  whisper: { model_dir: string; load_ms: number; threads: number };
  idle_cpu_ms_per_s: number;
  engines: EngineRow[];
  concurrency: ConcurrencyRow[];
}

export function latency(samples: readonly Sample[]): Latency {
  const s = summarize(samples.map((x) => x.afterEndMs));
  return { p50_ms: round(s.p50_ms, 1), p99_ms: round(s.p99_ms, 1), max_ms: round(s.max_ms, 1) };
}

export function wer(samples: readonly Sample[]): number {
  return round(wordErrorRate(samples.map((s) => ({ said: s.said, heard: s.heard }))), 3);
}

export function renderSttMarkdown(r: SttReport): string {
  const f = (v: number, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : '–');
  const pct = (v: number | null) => (v === null ? '— (random weights)' : `${(v * 100).toFixed(1)} %`);
  const engines = markdownTable(
    [
      'engine',
      'utterances',
      'WER',
      'CPU ms per audio s',
      'after end of speech p50 / p99 ms',
      'p50 vs streaming',
      'fell back',
      'note',
    ],
    r.engines.map((e) => [
      e.engine,
      e.utterances,
      pct(e.wer),
      f(e.cpu_ms_per_audio_s),
      `${f(e.after_end_ms.p50_ms)} / ${f(e.after_end_ms.p99_ms)}`,
      `${f(e.p50_vs_streaming, 2)}×`,
      e.fell_back,
      e.note,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  const concurrency = markdownTable(
    [
      'pace',
      'threads',
      'streams',
      'utterances',
      'WER',
      'CPU ms per audio s',
      'cores (main thread)',
      'audio s per wall s',
      'after end of speech p50 / p99 ms',
      'fell back',
    ],
    r.concurrency.map((c) => [
      c.pace,
      c.threads,
      c.streams,
      c.utterances,
      pct(c.wer),
      f(c.cpu_ms_per_audio_s),
      `${f(c.cores, 2)} (${f(c.main_thread_cores, 2)})`,
      f(c.audio_s_per_wall_s, 2),
      `${f(c.after_end_ms.p50_ms)} / ${f(c.after_end_ms.p99_ms)}`,
      c.fell_back,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const m = r.machine;
  const c = r.corpus;
  return [
    '# Speech to text: pocketsphinx streaming, per utterance, and local Whisper (random weights)',
    '',
    engines,
    '',
    `Corpus: ${c.utterances} flite utterances (voices ${c.voices.join(', ')}; ${f(c.speech_s)} s of speech), each with ${c.lead_ms} ms of noise floor before (the VAD's prefix padding) and ${c.tail_ms} ms after (what a session's stream gets before the VAD ends the segment), ${f(c.audio_s)} s in all; ` +
      `${r.passes} passes, the engines taking turns utterance by utterance. ` +
      '**Streaming**: 512-sample windows (the VAD\'s) written at real-time pace, each once its audio is spoken, to `openStream` on a loaded decoder; "after end of speech" = last window written → final transcript. ' +
      '**Per utterance**: `transcribe` of the whole clip once it has ended (decoder loaded): the wait is the whole decode. ' +
      "**4 windows per write**: the same stream written 128 ms at a time, each write once its audio is spoken: what batching a session's writes would save (the wait grows by the last write's decode, at most 128 ms of audio). " +
      "**Windows written at once**: the same stream fed without pacing, as a CPU reference: the paced row's CPU over it is what decoding 31 windows a second as they arrive costs (a worker wake-up and a message each way per window, caches gone cold in between); its wait is the whole decode. " +
      `**Whisper**: \`WhisperStt\` on tiny-random-whisper (scripts/make-test-models.ts; ${r.whisper.threads} ONNX threads, loaded in ${f(r.whisper.load_ms, 0)} ms before timing): random weights, so its transcripts are noise and it decodes to the 448-token limit; what it measures is the loading path and this tiny model's cost (1 + 1 layers of width 32), not Whisper's: a real whisper-tiny (39 M parameters, 4 + 4 layers of width 384) costs many times more per token, and stops at the end of the text. ` +
      `CPU = process CPU time (every thread: the decoder and model workers included) ÷ audio seconds; the streaming row includes the idle process over the real-time pacing (${f(r.idle_cpu_ms_per_s)} ms CPU per s idle). p99 is nearest rank (with ${r.engines[0]?.utterances ?? 0} samples, the second largest or the largest).`,
    '',
    '## Several streams at once (default 4 decoders; 1 and 2 decoder threads)',
    '',
    concurrency,
    '',
    'Each stream speaks continuously: its share of the corpus back to back, windows written at real-time pace (lanes starting 1 s apart over the 4), or all at once ("as fast as decoded": the throughput ceiling; the lag bound is lifted there). ' +
      '"audio s per wall s" as fast as decoded is how many continuous real-time speakers that many threads could carry. Cores = CPU ÷ wall; the main thread is the bench\'s writer with the provider\'s side of each call (the load generator shares the 2 cores). ' +
      '"fell back" = streams that gave up (behind real time by more than 3 s, or no decoder free) and were transcribed whole.',
    '',
    `Machine: ${m.cpu_count} × ${m.cpu_model}, Node ${m.node}, load ${m.load_avg_1m} at start and ${r.load_avg_1m_at_end} at end; ${r.started_at}. ` +
      "Other engineers' tests share this machine: ratios within the run are the figures, absolutes drift.",
  ].join('\n');
}
