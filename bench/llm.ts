/**
 * LLM time to first token and tokens/s: provider local-llama (node-llama-cpp in-process) on the
 * random-weight GGUF of scripts/make-tiny-gguf.ts, against the OpenAI-compatible path (OpenAiLlm,
 * the `openai` package over HTTP, streamed) to the local stand-in server of the tests, in the same
 * run and in alternating slices. The stand-in has no model: it streams its answer (one word per
 * chunk, as many words as the local answer has tokens) at once, so its side is the transport's own
 * cost, the floor any OpenAI-compatible server adds before its model's time.
 *
 * The fixture's compute is a toy's (2 layers, 64 wide): its numbers measure node-llama-cpp's and
 * Parley's per-request and per-token overhead, not a real model's speed. BENCH_LLAMA_MODEL=<file.gguf>
 * runs the local side on a real model instead (e.g. the Qwen2.5-0.5B file `npm run models` fetches).
 *
 *   node --import tsx bench/llm.ts      # bench/results/llm.{json,md}
 *   BENCH_LLAMA_THREADS=4 BENCH_LLAMA_GPU=auto node --import tsx bench/llm.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyGguf } from '../scripts/make-tiny-gguf.js';
import { LlamaLlm } from '../src/providers/llama/llama-llm.js';
import { SharedLlamaModel } from '../src/providers/llama/shared-llama-model.js';
import type { LlmProvider, LlmRequest } from '../src/providers/llm.js';
import { OpenAiLlm } from '../src/providers/openai/openai-llm.js';
import { startOpenAiServer } from '../test/support/openai-server.js';
import { isMain } from './lib/is-main.js';
import { summarize, type LatencySummary } from './lib/percentiles.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

export interface LlmBenchOptions {
  /** Tokens each answer generates (the fixture never stops early, so exactly this many). */
  maxTokens: number;
  /** Requests at once; each level runs `rounds` slices per side. */
  concurrency: number[];
  /** Slices per concurrency level, alternating sides; each slice runs `concurrency` requests at once, twice. */
  rounds: number;
  /** llama.cpp CPU threads. */
  threads: number;
  gpu: 'auto' | false;
  /** A real GGUF file for the local side; unset: the random-weight fixture. */
  modelPath: string | undefined;
}

export const defaultLlmBenchOptions: LlmBenchOptions = {
  maxTokens: 128,
  concurrency: [1, 4],
  rounds: 5,
  threads: Number(process.env['BENCH_LLAMA_THREADS'] ?? 1),
  gpu: process.env['BENCH_LLAMA_GPU'] === 'auto' ? 'auto' : false,
  modelPath: process.env['BENCH_LLAMA_MODEL'] || undefined,
};

interface Sample {
  ttftMs: number;
  totalMs: number;
  tokens: number;
}

export interface LlmSide {
  requests: number;
  ttft: LatencySummary;
  /** Per request: (tokens − 1) / (total − time to first token). */
  decode_tokens_per_s_p50: number;
  /** All requests' tokens over the slices' wall time. */
  throughput_tokens_per_s: number;
}

export interface LlmRow {
  concurrency: number;
  local_llama: LlmSide;
  openai_stand_in: LlmSide;
}

const messages: LlmRequest['messages'] = [
  { role: 'system', content: 'You are a helpful assistant for a bicycle shop. Answer briefly.' },
  { role: 'user', content: 'What time do you open on Sunday? I would like to bring my bike in for a service.' },
];

async function measure(llm: LlmProvider, maxTokens: number, count: (text: string) => number): Promise<Sample> {
  const start = performance.now();
  let ttftMs = -1;
  let text = '';
  for await (const chunk of llm.stream({ model: 'bench', messages, temperature: 0, maxTokens, timeoutMs: 120_000 })) {
    if (ttftMs < 0) ttftMs = performance.now() - start;
    text += chunk;
  }
  return { ttftMs, totalMs: performance.now() - start, tokens: count(text) };
}

function side(samples: Sample[], wallMs: number): LlmSide {
  const decode = samples
    .filter((s) => s.tokens > 1 && s.totalMs > s.ttftMs)
    .map((s) => (s.tokens - 1) / ((s.totalMs - s.ttftMs) / 1000))
    .sort((a, b) => a - b);
  const tokens = samples.reduce((n, s) => n + s.tokens, 0);
  return {
    requests: samples.length,
    ttft: summarize(samples.map((s) => s.ttftMs)),
    decode_tokens_per_s_p50: decode[Math.floor(decode.length / 2)] ?? Number.NaN,
    throughput_tokens_per_s: tokens / (wallMs / 1000),
  };
}

export async function runLlmBench(options: LlmBenchOptions = defaultLlmBenchOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-llm-'));
  const modelPath = options.modelPath ?? join(dir, 'tiny-random-qwen2.gguf');
  if (options.modelPath === undefined) await writeTinyGguf(modelPath);
  const words = Array.from({ length: options.maxTokens }, (_, i) => `w${i}`).join(' ');
  const server = await startOpenAiServer(() => words);
  try {
    const local = new LlamaLlm(modelPath, {
      threads: options.threads,
      gpu: options.gpu,
      sequences: Math.max(...options.concurrency),
    });
    const openai = new OpenAiLlm({ apiKey: 'sk-bench', baseUrl: server.baseUrl });
    const loadStart = performance.now();
    const shared = await local.loaded();
    const loadMs = performance.now() - loadStart;
    const countLocal = (text: string) =>
      options.modelPath === undefined ? options.maxTokens : shared.model.tokenize(text).length;
    const countWords = (text: string) => text.split(' ').filter((w) => w !== '').length;
    // Warm-up: first prompt evaluation, the HTTP connection.
    await measure(local, 8, countLocal);
    await measure(openai, 8, countWords);

    const rows: LlmRow[] = [];
    for (const concurrency of options.concurrency) {
      const runs = { local: { samples: [] as Sample[], wallMs: 0 }, openai: { samples: [] as Sample[], wallMs: 0 } };
      for (let r = 0; r < options.rounds; r++) {
        for (const name of r % 2 === 0 ? (['local', 'openai'] as const) : (['openai', 'local'] as const)) {
          const [llm, count] = name === 'local' ? [local, countLocal] : [openai, countWords];
          const start = performance.now();
          for (let slice = 0; slice < 2; slice++) {
            const done = await Promise.all(
              Array.from({ length: concurrency }, () => measure(llm, options.maxTokens, count)),
            );
            runs[name].samples.push(...done);
          }
          runs[name].wallMs += performance.now() - start;
        }
      }
      rows.push({
        concurrency,
        local_llama: side(runs.local.samples, runs.local.wallMs),
        openai_stand_in: side(runs.openai.samples, runs.openai.wallMs),
      });
    }
    return {
      bench: 'llm' as const,
      started_at: new Date().toISOString(),
      machine: machineInfo(),
      options,
      model: options.modelPath ?? 'tiny-random-qwen2 (scripts/make-tiny-gguf.ts, random weights)',
      compute: shared.gpu === false ? 'cpu' : shared.gpu,
      chat_wrapper: shared.chatWrapper.wrapperName,
      model_load_ms: round(loadMs, 1),
      rows,
    };
  } finally {
    await SharedLlamaModel.closeAll();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function llmMarkdown(report: Awaited<ReturnType<typeof runLlmBench>>): string {
  const fmt = (s: LlmSide) => [
    round(s.ttft.p50_ms, 2),
    round(s.ttft.p99_ms, 2),
    round(s.decode_tokens_per_s_p50, 0),
    round(s.throughput_tokens_per_s, 0),
  ];
  const header = ['concurrency', 'path', 'TTFT p50 ms', 'TTFT p99 ms', 'tokens/s per request (p50)', 'tokens/s all'];
  const rows = report.rows.flatMap((r) => [
    [r.concurrency, 'local-llama', ...fmt(r.local_llama)],
    [r.concurrency, 'openai → stand-in', ...fmt(r.openai_stand_in)],
  ]);
  return [
    `# LLM: local-llama vs the OpenAI-compatible path`,
    '',
    `${report.model}; ${report.compute}, ${report.options.threads} thread(s); chat wrapper ${report.chat_wrapper}; ` +
      `${report.options.maxTokens} tokens per answer; model load ${report.model_load_ms} ms. ` +
      `Node ${report.machine.node}, ${report.machine.cpu_model} × ${report.machine.cpu_count}, load ${report.machine.load_avg_1m}.`,
    '',
    markdownTable(header, rows, ['right', 'left', 'right', 'right', 'right', 'right']),
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const report = await runLlmBench();
  const markdown = llmMarkdown(report);
  await publishResults('llm', report, markdown);
}
