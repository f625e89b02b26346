/**
 * Streaming providers (issue 32): what the user waits for a complete question, and what Parley's
 * CPU costs, with each provider path, in one run. A real Parley in its own process (CPU from
 * /proc) calls the fakes of test/support (bench/streaming/fakes.ts: a recogniser's final 150–300 ms
 * after the audio, TTS first audio 150 ms, a webhook whose model writes 40 tokens a second), and
 * callers in the bench process ask flite questions at real-time pace over the WebSocket media
 * protocol. Rows: the batch baseline (OpenAI-compatible STT uploading a WAV, TTS a piece at a time,
 * a JSON webhook), each streaming path alone in its place, and all of them together.
 *
 *   node --import tsx bench/streaming.ts          # writes bench/results/streaming.{json,md}
 *   STREAMING_BENCH_QUICK=1 …                     # about two minutes (4 sessions × 3 questions, one round)
 */
import { fileURLToPath } from 'node:url';
import { fliteSay } from '../test/support/flite-speech.js';
import { TestRedis } from '../test/support/redis-server.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, publishResults } from './lib/report.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { createBenchAgent } from './lib/bench-api.js';
import { serveBenchParley } from './lib/bench-parley.js';
import { answer, startFakes, timings, type BenchFakes, type Question } from './streaming/fakes.js';
import {
  renderMarkdown,
  summarizeRow,
  type RowSamples,
  type RowSpec,
  type StreamingReport,
} from './streaming/report.js';
import { emptySamples, runRow, type RowPlan } from './streaming/row-run.js';

const thisFile = fileURLToPath(import.meta.url);

export const rows: RowSpec[] = [
  { row: 'baseline (batch)', stt: 'openai', tts: 'openai', webhook: 'json' },
  { row: 'deepgram', stt: 'deepgram', tts: 'openai', webhook: 'json' },
  { row: 'openai-realtime', stt: 'openai-realtime', tts: 'openai', webhook: 'json' },
  { row: 'elevenlabs', stt: 'openai', tts: 'elevenlabs', webhook: 'json' },
  { row: 'streamed webhook', stt: 'openai', tts: 'openai', webhook: 'streamed' },
  { row: 'all streaming (deepgram)', stt: 'deepgram', tts: 'elevenlabs', webhook: 'streamed' },
  { row: 'all streaming (openai-realtime)', stt: 'openai-realtime', tts: 'elevenlabs', webhook: 'streamed' },
];

const sttPresets = {
  openai: { provider: 'openai', model: 'whisper-1', language: 'en' },
  deepgram: { provider: 'deepgram', model: 'nova-3', language: 'en-US' },
  'openai-realtime': { provider: 'openai-realtime', model: 'gpt-4o-mini-transcribe', language: 'en' },
} as const;
const ttsPresets = {
  openai: { provider: 'openai', model: 'tts-1', voice: 'alloy' },
  elevenlabs: { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice: 'JBFqnCBsd6RMkjVDRZzb' },
} as const;

/** Complete questions, ending in "?" as these recognisers punctuate them. */
const questionTexts = [
  'What time do you open tomorrow?',
  'Can I book a table for four people tonight?',
  'Do you have any vegetarian dishes on the menu?',
  'How much does the delivery cost?',
];

export interface StreamingBenchOptions {
  sessions: number;
  turns: number;
  /** Every row once per round, rows in order: later rounds see the box's load change alike. */
  rounds: number;
  /** Silence after an answer has played before the next question. */
  gapMs: number;
}

export const defaultOptions: StreamingBenchOptions = { sessions: 6, turns: 4, rounds: 2, gapMs: 600 };
const quickOptions: StreamingBenchOptions = { sessions: 4, turns: 3, rounds: 1, gapMs: 600 };

/** A passthrough agent on the row's providers, answered by the row's webhook; its token. */
async function createAgent(url: string, spec: RowSpec, fakes: BenchFakes): Promise<string> {
  const name = `Streaming bench ${spec.row}`;
  const preset = { name, stt: sttPresets[spec.stt], tts: ttsPresets[spec.tts] };
  const webhook = spec.webhook === 'json' ? fakes.jsonHook : fakes.streamHook;
  return (await createBenchAgent(url, { name, webhook_url: webhook.url, greeting: null }, preset)).agent_token;
}

export async function main(options: StreamingBenchOptions, quick: boolean): Promise<StreamingReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  console.log(`streaming: ${rows.length} rows, ${options.sessions} sessions × ${options.turns} questions…`);
  const questions: Question[] = questionTexts.map((text) => ({ text, samples: fliteSay(text) }));
  const redis = await TestRedis.start({ external: false, persistence: false });
  const fakes = await startFakes(questions);
  let parley: ServerProcess | undefined;
  try {
    parley = await spawnServer({
      name: 'streaming-parley',
      script: thisFile,
      args: ['--serve', 'parley', redis.url, JSON.stringify(fakes.env)],
    });
    const plan: RowPlan = { parley, fakes, questions, ...options };
    const tokens = new Map<RowSpec, string>();
    for (const spec of rows) tokens.set(spec, await createAgent(parley.url, spec, fakes));
    // warm-up, not counted: one caller per row at once, one question
    const scratch = emptySamples();
    await Promise.all(rows.map((spec) => runRow(plan, tokens.get(spec)!, scratch, 1, 1)));
    const samples = new Map<RowSpec, RowSamples>(rows.map((spec) => [spec, emptySamples()]));
    for (let round = 0; round < options.rounds; round++) {
      for (const spec of rows) {
        console.log(`streaming: round ${round + 1}, ${spec.row}…`);
        await runRow(plan, tokens.get(spec)!, samples.get(spec)!);
      }
    }
    const baseline = samples.get(rows[0]!)!;
    const report: StreamingReport = {
      bench: 'streaming',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      quick,
      options: { sessions: options.sessions, turns: options.turns, rounds: options.rounds, gap_ms: options.gapMs },
      timings: {
        stt_ms: timings.sttMs,
        tts_first_byte_ms: timings.ttsFirstByteMs,
        webhook_tokens_per_s: timings.webhookTokensPerS,
      },
      answer,
      questions: questionTexts,
      batch_uploads_unrecognised: fakes.unrecognised(),
      rows: rows.map((spec) => summarizeRow(spec, samples.get(spec)!, baseline)),
    };
    const markdown = renderMarkdown(report);
    await publishResults('streaming', report, markdown);
    return report;
  } finally {
    await parley?.stop().catch((err: unknown) => console.error('streaming: stopping Parley failed', err));
    await fakes.close();
    await redis.close();
  }
}

if (isMain(import.meta.url)) {
  const [flag, target, redisUrl, env] = process.argv.slice(2);
  if (flag === '--serve' && target === 'parley') {
    // in a process of its own, so that its CPU (/proc) is Parley's alone; the real providers call
    // the fakes. Silero scores every window, the silence between questions too, as on a real
    // (noisy) line: the bench's silence is digital zeros, which the floor would skip.
    const fakesEnv = JSON.parse(env!) as Record<string, string>;
    await serveBenchParley(redisUrl!, { PARLEY_WORKERS: '1', PARLEY_VAD_SILENCE_FLOOR_DBFS: 'off', ...fakesEnv });
  } else {
    const quick = process.env['STREAMING_BENCH_QUICK'] === '1';
    await main(quick ? quickOptions : defaultOptions, quick);
  }
}
