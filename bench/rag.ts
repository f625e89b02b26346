/**
 * RAG benchmark.
 * - embedding throughput (chunks/s) of minilm-l6-random (real MiniLM-L6 compute, random weights)
 *   through the worker pool (PARLEY_EMBEDDING_WORKERS, default 2) against one worker thread, same run;
 * - hybrid search latency (BM25 + cosine + RRF, in process) at 10k and 100k chunks for one agent:
 *   synthetic chunks of 40 Zipf-distributed content words and random unit vectors; the query vector is given,
 *   so the numbers are the index alone (embedding the query is the throughput row's per-text cost);
 * - ingestion of a 1 MB Markdown document end to end (Redis, queue, extraction, chunking, embedding,
 *   storage), upload to `ready`.
 *
 *   node --import tsx bench/rag.ts         # writes bench/results/rag.{json,md}
 *   MODELS_DIR=… BENCH_RAG_CHUNKS=10000,100000 node --import tsx bench/rag.ts
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { openParley } from '../src/parley.js';
import { AgentIndex } from '../src/rag/agent-index.js';
import { LocalEmbedder } from '../src/providers/local/local-embedder.js';
import { isMain } from './lib/is-main.js';
import { summarize, type LatencySummary } from './lib/percentiles.js';
import { TestRedis } from '../test/support/redis-server.js';
import { machineInfo, markdownTable, round, writeResults } from './lib/report.js';

const modelsDir = resolve(process.env['MODELS_DIR'] ?? '../shared/models');
const model = process.env['BENCH_RAG_MODEL'] ?? 'minilm-l6-random';
const poolSize = Number(process.env['PARLEY_EMBEDDING_WORKERS'] ?? 2);
const chunkCounts = (process.env['BENCH_RAG_CHUNKS'] ?? '10000,100000').split(',').map(Number);
const corpus = new URL('../test/fixtures/rag/corpus/', import.meta.url);

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Real-looking chunk texts (~120 tokens) cut from the test corpus. */
function sampleTexts(n: number): string[] {
  const words = ['lighthouses.md', 'saturn.md', 'tea.md', 'sourdough.txt', 'volcanoes.txt', 'clutch.txt']
    .map((f) => readFileSync(new URL(f, corpus), 'utf8'))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);
  return Array.from({ length: n }, (_, i) => {
    const start = (i * 37) % (words.length - 100);
    return words.slice(start, start + 90).join(' ');
  });
}

interface Throughput {
  workers: number;
  chunks: number;
  seconds: number;
  chunks_per_s: number;
}

async function embeddingThroughput(workers: number, texts: string[]): Promise<Throughput> {
  const embedder = new LocalEmbedder({
    model,
    modelDir: resolve(modelsDir, model),
    workers,
    threadsPerWorker: 1,
    batchSize: 32,
  });
  try {
    await embedder.warm();
    await embedder.embed(texts.slice(0, 32 * workers)); // warm-up batch per worker
    const start = performance.now();
    await embedder.embed(texts);
    const seconds = (performance.now() - start) / 1000;
    return {
      workers,
      chunks: texts.length,
      seconds: round(seconds, 2),
      chunks_per_s: round(texts.length / seconds, 1),
    };
  } finally {
    await embedder.close();
  }
}

interface SearchResult {
  chunks: number;
  build_s: number;
  queries: number;
  hybrid: LatencySummary;
  bm25_only: LatencySummary;
  vector_only: LatencySummary;
}

function unitVector(random: () => number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let n = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = random() - 0.5;
    n += v[i]! * v[i]!;
  }
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < dims; i++) v[i]! *= s;
  return v;
}

async function searchLatency(count: number): Promise<SearchResult> {
  const random = rng(count);
  // Content words follow Zipf's law (s = 1) over 20,000 words, without the 50 most frequent
  // (stop words, which the index drops anyway).
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
  const cumulative = new Float64Array(vocabulary.length);
  let total = 0;
  for (let i = 0; i < vocabulary.length; i++) cumulative[i] = total += 1 / (i + 51);
  const word = () => {
    const x = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
  const index = new AgentIndex();
  const start = performance.now();
  const perDoc = 1000;
  for (let d = 0; d < count / perDoc; d++) {
    const docId = `doc_${d}`;
    const chunks = Array.from({ length: perDoc }, (_, i) => {
      const text = Array.from({ length: 40 }, word).join(' ');
      return { id: `${docId}#${i}`, document_id: docId, index: i, text, start: 0, end: text.length, tokens: 40 };
    });
    index.addDocument(
      { id: docId, name: docId },
      chunks,
      chunks.map(() => unitVector(random, 384)),
    );
  }
  const build = (performance.now() - start) / 1000;
  const queries = Array.from({ length: 300 }, () => ({
    text: Array.from({ length: 5 }, word).join(' '),
    vector: unitVector(random, 384),
  }));
  const time = (fn: (q: (typeof queries)[number]) => unknown): LatencySummary => {
    for (const q of queries.slice(0, 30)) fn(q); // warm-up
    const samples: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      fn(q);
      samples.push(performance.now() - t);
    }
    const s = summarize(samples);
    return {
      ...s,
      mean_ms: round(s.mean_ms, 3),
      p50_ms: round(s.p50_ms, 3),
      p90_ms: round(s.p90_ms, 3),
      p99_ms: round(s.p99_ms, 3),
      max_ms: round(s.max_ms, 3),
    };
  };
  const options = { k: 5, minScore: 0 };
  return {
    chunks: count,
    build_s: round(build, 1),
    queries: queries.length,
    hybrid: time((q) => index.search(q.text, q.vector, options)),
    bm25_only: time((q) => index.search(q.text, null, options)),
    vector_only: time((q) => index.search('', q.vector, options)),
  };
}

interface IngestResult {
  bytes: number;
  chunks: number;
  seconds: number;
  chunks_per_s: number;
}

async function ingestion(): Promise<IngestResult> {
  const redis = await TestRedis.start({ external: false, persistence: false });
  const config = loadConfig({
    NODE_ENV: 'production',
    PARLEY_LOG_LEVEL: 'silent',
    MODELS_DIR: modelsDir,
    PARLEY_EMBEDDING_MODEL: model,
    REDIS_URL: redis.url,
    PARLEY_ADMIN_API_KEY: 'bench-admin-key-0123456789',
  });
  const parley = await openParley(
    { ...config, adminApiKey: config.adminApiKey!, redisUrl: redis.url },
    pino({ level: 'silent' }),
  );
  try {
    const agent = await parley.store.agents.create({ name: 'bench' });
    const base = ['lighthouses.md', 'saturn.md', 'tea.md']
      .map((f) => readFileSync(new URL(f, corpus), 'utf8'))
      .join('\n\n');
    let text = '';
    for (let i = 0; Buffer.byteLength(text) < 1024 * 1024; i++)
      text += base.replace(/^(#+ .*)$/gm, `$1 (part ${i})`) + '\n\n';
    const raw = Buffer.from(text);
    await (await parley.services.rag.embedderFor(agent)).warm();
    const start = performance.now();
    const doc = await parley.services.rag.upload(agent.id, { name: 'one-megabyte.md', type: 'markdown', raw });
    for (;;) {
      const d = await parley.store.documents.get(agent.id, doc.id);
      if (d.status === 'failed') throw new Error(`ingestion failed: ${d.error}`);
      if (d.status === 'ready') {
        const seconds = (performance.now() - start) / 1000;
        return {
          bytes: raw.length,
          chunks: d.chunk_count,
          seconds: round(seconds, 1),
          chunks_per_s: round(d.chunk_count / seconds, 1),
        };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await parley.close();
    await redis.close();
  }
}

export async function main(): Promise<void> {
  const texts = sampleTexts(Number(process.env['BENCH_RAG_EMBED_CHUNKS'] ?? 256));
  console.log(`embedding ${texts.length} chunks with ${model}: 1 worker, then ${poolSize}…`);
  const one = await embeddingThroughput(1, texts);
  const pool = await embeddingThroughput(poolSize, texts);
  const searches: SearchResult[] = [];
  for (const n of chunkCounts) {
    console.log(`search at ${n} chunks…`);
    searches.push(await searchLatency(n));
  }
  console.log('ingesting a 1 MB document…');
  const ingest = await ingestion();

  const speedup = round(pool.chunks_per_s / one.chunks_per_s, 2);
  const result = {
    machine: machineInfo(),
    model,
    embedding: { one_thread: one, pool, speedup },
    search: searches,
    ingestion_1mb: ingest,
  };
  const md = [
    `# RAG benchmark`,
    ``,
    `${result.machine.cpu_model}, ${cpus().length} CPUs, Node ${result.machine.node}; model \`${model}\` (int8 ONNX, batch 32).`,
    ``,
    markdownTable(
      ['Embedding', 'Workers', 'Chunks', 'Seconds', 'Chunks/s'],
      [
        ['one worker thread', 1, one.chunks, one.seconds, one.chunks_per_s],
        ['worker pool', pool.workers, pool.chunks, pool.seconds, pool.chunks_per_s],
      ],
      ['left', 'right', 'right', 'right', 'right'],
    ),
    ``,
    `Pool speed-up: **${speedup}×**.`,
    ``,
    markdownTable(
      [
        'Search (k=5, one agent)',
        'Chunks',
        'Hybrid p50 ms',
        'Hybrid p99 ms',
        'BM25 p99 ms',
        'Vector p99 ms',
        'Index build s',
      ],
      searches.map((s) => [
        'in-process index',
        s.chunks,
        s.hybrid.p50_ms,
        s.hybrid.p99_ms,
        s.bm25_only.p99_ms,
        s.vector_only.p99_ms,
        s.build_s,
      ]),
      ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
    ``,
    markdownTable(
      ['Ingestion', 'Bytes', 'Chunks', 'Seconds (upload → ready)', 'Chunks/s'],
      [['1 MB Markdown', ingest.bytes, ingest.chunks, ingest.seconds, ingest.chunks_per_s]],
      ['left', 'right', 'right', 'right', 'right'],
    ),
  ].join('\n');
  await writeResults('rag', result, md);
  console.log(md);
}

if (isMain(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
