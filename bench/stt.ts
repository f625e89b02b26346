/**
 * Speech to text on real speech (issue 19, item 6): pocketsphinx streaming (decoding while the
 * utterance is spoken) against the same recogniser run per utterance (the whole clip after it
 * ended, the model already loaded) and against local Whisper on the random-weight fixture, in one
 * run, the engines taking turns utterance by utterance so machine noise hits all alike. Then
 * several streams at once, with 1 and 2 decoder threads: at real-time pace (the wait after the end
 * of speech under load) and as fast as decoded (the throughput ceiling).
 *
 * Audio: flite at 16 kHz, generated at run time (bench/stt/corpus.ts). Cost = process CPU time
 * (every thread: the decoders' and Whisper's workers run in this process) per second of audio.
 *
 * Two more sections (issue 31): people's voices at phone rate (bench/stt/phone-rate.ts, Asterisk's
 * recorded prompts) and the agent's expected phrases as a boost, a grammar or neither
 * (bench/stt/vocabulary.ts); each writes its own results.
 *
 *   node --import tsx bench/stt.ts      # writes bench/results/stt.{json,md}; STT_BENCH_PASSES=2
 *   STT_BENCH_SECTIONS=phone-rate,vocabulary node --import tsx bench/stt.ts
 *                                       # only those: bench/results/stt-phone-rate.*, stt-vocabulary.*
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { LocalModel } from '../src/providers/local/local-model.js';
import { defaultLocalModelOptions } from '../src/providers/local/local-model-options.js';
import { WhisperStt } from '../src/providers/local/whisper-stt.js';
import { PocketsphinxStt } from '../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, round, publishResults } from './lib/report.js';
import { audioMs, buildSttCorpus, leadMs, tailMs, type Utterance } from './stt/corpus.js';
import { concurrentStreams, streamOne, warmDecoders, wholeOne, withCpu, type Sample } from './stt/engines.js';
import { latency, renderSttMarkdown, wer, type ConcurrencyRow, type EngineRow, type SttReport } from './stt/report.js';
import { testModelsDir } from '../test/support/test-models.js';
import { phoneRateSection, renderPhoneRateMarkdown, type PhoneRateReport } from './stt/phone-rate.js';
import { vocabularySection, type VocabularyReport } from './stt/vocabulary.js';
import { renderVocabularyMarkdown } from './stt/vocabulary-report.js';

export interface SttBenchOptions {
  /** Times the corpus is transcribed by each engine. */
  passes: number;
  /** Streams at once in the concurrency rows. */
  streams: number;
  /** Decoder threads tried in the concurrency rows. */
  threads: number[];
  /** The Whisper model's folder; default: the test models' tiny-random-whisper (test/support/test-models.ts). */
  whisperDir: string | null;
}

export const defaultSttBenchOptions: SttBenchOptions = {
  passes: 2,
  streams: 4,
  threads: [1, 2],
  whisperDir: null,
};

interface Engine {
  name: string;
  note: string;
  run: (u: Utterance) => Promise<Sample>;
  samples: Sample[];
  cpuMs: number;
  audioMs: number;
}

export async function main(overrides: Partial<SttBenchOptions> = {}): Promise<SttReport> {
  const chosen = { ...defaultSttBenchOptions, ...overrides };
  const options = { ...chosen, whisperDir: chosen.whisperDir ?? join(await testModelsDir(), 'tiny-random-whisper') };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  console.log('stt: speaking the corpus with flite…');
  const corpus = buildSttCorpus();
  const sphinx = new PocketsphinxStt(); // the defaults: 4 decoders on 1 thread
  // the same, its lag bound lifted: a stream written all at once is far ahead of its decoder
  const unbounded = new PocketsphinxStt({ decoders: 1, maxLagMs: 3_600_000 });
  try {
    await warmDecoders(sphinx, sphinx.options.decoders, corpus[2]!.audio);
    await warmDecoders(unbounded, 1, corpus[2]!.audio);
    const whisperLoad = await withCpu(() => WhisperStt.load(options.whisperDir));
    const whisper = whisperLoad.value;
    await whisper.transcribe({ audio: corpus[0]!.audio, sampleRate: 16_000, model: 'tiny-random', language: null });

    const engine = (name: string, note: string, run: Engine['run']): Engine => ({
      name,
      note,
      run,
      samples: [],
      cpuMs: 0,
      audioMs: 0,
    });
    const engines = [
      engine('pocketsphinx streaming (real-time pace)', 'decodes while spoken', (u) => streamOne(sphinx, u, true)),
      engine('pocketsphinx per utterance (model loaded)', 'baseline: the same recogniser, whole clip', (u) =>
        wholeOne(sphinx, u),
      ),
      engine('pocketsphinx streaming, 4 windows per write (real-time pace)', 'what batching writes would save', (u) =>
        streamOne(sphinx, u, true, 4),
      ),
      engine('pocketsphinx streaming, windows written at once', 'CPU reference: the stream without the pacing', (u) =>
        streamOne(unbounded, u, false),
      ),
      engine('local Whisper, tiny-random-whisper', 'random weights: cost of the path, not of Whisper', (u) =>
        wholeOne(whisper, { ...u, text: '' }),
      ),
    ];
    const whisperEngine = engines.at(-1);
    for (let pass = 0; pass < options.passes; pass++) {
      console.log(`stt: pass ${pass + 1} of ${options.passes} (${corpus.length} utterances × ${engines.length})…`);
      for (const [i, u] of corpus.entries()) {
        for (let k = 0; k < engines.length; k++) {
          const e = engines[(i + k) % engines.length]!; // each engine goes first, second, third in turn
          const { value, cpuMs } = await withCpu(() => e.run(u));
          e.samples.push(value);
          e.cpuMs += cpuMs;
          e.audioMs += audioMs(u);
        }
      }
    }
    await LocalModel.closeAll(); // Whisper's threads off before the concurrency rows
    const idle = await withCpu(() => sleep(2_000));
    const streamingP50 = latency(engines[0]!.samples).p50_ms;
    const engineRows: EngineRow[] = engines.map((e) => {
      const after = latency(e.samples);
      return {
        engine: e.name,
        utterances: e.samples.length,
        wer: e === whisperEngine ? null : wer(e.samples),
        cpu_ms_per_audio_s: round(e.cpuMs / (e.audioMs / 1000), 1),
        after_end_ms: after,
        p50_vs_streaming: round(after.p50_ms / streamingP50, 2),
        fell_back: e.samples.filter((s) => s.fellBack).length,
        note: e.note,
      };
    });
    for (const r of engineRows) console.log(`  ${r.engine}: ${JSON.stringify(r)}`);

    const concurrency: ConcurrencyRow[] = [];
    for (const paced of [true, false]) {
      for (const threads of options.threads) {
        concurrency.push(await concurrencyRow(corpus, options.streams, threads, paced));
        console.log(`  concurrency: ${JSON.stringify(concurrency.at(-1))}`);
      }
    }

    const report: SttReport = {
      bench: 'stt',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      corpus: {
        utterances: corpus.length,
        voices: [...new Set(corpus.map((u) => u.voice))],
        speech_s: round(corpus.reduce((s, u) => s + u.speechMs, 0) / 1000, 1),
        audio_s: round(corpus.reduce((s, u) => s + audioMs(u), 0) / 1000, 1),
        lead_ms: leadMs,
        tail_ms: tailMs,
      },
      passes: options.passes,
      whisper: {
        model_dir: options.whisperDir,
        load_ms: round(whisperLoad.wallMs, 0),
        threads: defaultLocalModelOptions.threads,
      },
      idle_cpu_ms_per_s: round(idle.cpuMs / (idle.wallMs / 1000), 1),
      engines: engineRows,
      concurrency,
    };
    const markdown = renderSttMarkdown(report);
    await publishResults('stt', report, markdown);
    return report;
  } finally {
    await sphinx.close();
    await unbounded.close();
    await LocalModel.closeAll();
  }
}

async function concurrencyRow(
  corpus: Utterance[],
  streams: number,
  threads: number,
  paced: boolean,
): Promise<ConcurrencyRow> {
  // as fast as decoded, a stream runs far ahead of its decoder: lift the lag bound there
  const stt = new PocketsphinxStt({ threads, decoders: streams, ...(paced ? {} : { maxLagMs: 3_600_000 }) });
  try {
    await warmDecoders(stt, streams, corpus[2]!.audio);
    const run = await concurrentStreams(stt, corpus, streams, paced);
    const audioS = run.samples.reduce((s, x) => s + x.audioMs, 0) / 1000;
    return {
      pace: paced ? 'real time' : 'as fast as decoded',
      threads,
      streams,
      utterances: run.samples.length,
      wer: wer(run.samples),
      cpu_ms_per_audio_s: round(run.cpuMs / audioS, 1),
      cores: round(run.cpuMs / run.wallMs, 2),
      main_thread_cores: round(run.mainThreadCpuMs / run.wallMs, 2),
      audio_s_per_wall_s: round(audioS / (run.wallMs / 1000), 2),
      after_end_ms: latency(run.samples),
      fell_back: run.samples.filter((s) => s.fellBack).length,
    };
  } finally {
    await stt.close();
  }
}

/** People's voices at phone rate: bench/results/stt-phone-rate.{json,md}. */
export async function phoneRate(): Promise<PhoneRateReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const report = await phoneRateSection();
  const footer = `Machine: ${machine.cpu_count} × ${machine.cpu_model}, Node ${machine.node}, load ${machine.load_avg_1m} at start and ${machineInfo().load_avg_1m} at end; ${startedAt}.`;
  const markdown = `${renderPhoneRateMarkdown(report)}\n\n${footer}`;
  await publishResults(
    'stt-phone-rate',
    { bench: 'stt-phone-rate', started_at: startedAt, machine, ...report },
    markdown,
  );
  return report;
}

/** Expected phrases as a boost, a grammar or neither: bench/results/stt-vocabulary.{json,md}. */
export async function vocabulary(): Promise<VocabularyReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const report = await vocabularySection();
  const footer = `Machine: ${machine.cpu_count} × ${machine.cpu_model}, Node ${machine.node}, load ${machine.load_avg_1m} at start and ${machineInfo().load_avg_1m} at end; ${startedAt}.`;
  const markdown = `${renderVocabularyMarkdown(report)}\n\n${footer}`;
  await publishResults(
    'stt-vocabulary',
    { bench: 'stt-vocabulary', started_at: startedAt, machine, ...report },
    markdown,
  );
  return report;
}

/** `STT_BENCH_PASSES=1` for a shorter run; `STT_BENCH_SECTIONS=engines,phone-rate,vocabulary` (all by default). */
if (isMain(import.meta.url)) {
  const sections = (process.env['STT_BENCH_SECTIONS'] ?? 'engines,phone-rate,vocabulary').split(',');
  const passes = process.env['STT_BENCH_PASSES'];
  if (sections.includes('engines')) await main(passes === undefined ? {} : { passes: Number(passes) });
  if (sections.includes('phone-rate')) await phoneRate();
  if (sections.includes('vocabulary')) await vocabulary();
}
