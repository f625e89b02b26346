/**
 * RAG benchmark.
 * - embedding throughput (chunks/s) of minilm-l6-random (real MiniLM-L6 compute, random weights)
 *   through the worker pool (PARLEY_EMBEDDING_WORKERS, default 2) against one worker thread, same run;
 * - hybrid search latency (BM25 + cosine + RRF, in process) at 10k and 100k chunks for one agent, on the
 *   exact scan and through the ANN graph of the same index, with recall@5 of the ANN against the exact
 *   scan (bench/lib/rag-search.ts: Zipf texts, vectors with the topic/document/section structure of
 *   sentence embeddings); the query vector is given, so the numbers are the index alone (embedding the
 *   query is the throughput row's per-text cost); plus the recall on uniformly random vectors (no
 *   neighbour structure: the worst case) at BENCH_RAG_UNIFORM chunks (default 10000, 0 skips it);
 * - ingestion of a 1 MB Markdown document end to end (Redis, queue, extraction, chunking, embedding,
 *   storage), upload to `ready`.
 *
 *   node --import tsx bench/rag.ts         # writes bench/results/rag.{json,md}
 *   MODELS_DIR=… BENCH_RAG_CHUNKS=10000,100000 node --import tsx bench/rag.ts
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { defaultAnnSettings } from '../src/rag/ann-index.js';
import { LocalEmbedder } from '../src/rag/embedding/local-embedder.js';
import { benchConfig } from './lib/bench-parley.js';
import { isMain } from './lib/is-main.js';
import { searchRun, type SearchRun } from './lib/rag-search.js';
import { TestRedis } from '../test/support/redis-server.js';
import { openFromConfig } from '../test/support/open-parley.js';
import { testModelsDir } from '../test/support/test-models.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

const modelsDir = resolve(await testModelsDir());
const model = process.env['BENCH_RAG_MODEL'] ?? 'minilm-l6-random';
const poolSize = Number(process.env['PARLEY_EMBEDDING_WORKERS'] ?? 2);
const chunkCounts = (process.env['BENCH_RAG_CHUNKS'] ?? '10000,100000').split(',').map(Number);
const uniformChunks = Number(process.env['BENCH_RAG_UNIFORM'] ?? 10_000);
const corpus = new URL('../test/fixtures/rag/corpus/', import.meta.url);

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

interface IngestResult {
  bytes: number;
  chunks: number;
  seconds: number;
  chunks_per_s: number;
}

async function ingestion(): Promise<IngestResult> {
  const redis = await TestRedis.start({ external: false, persistence: false });
  const parley = await openFromConfig(
    await benchConfig(redis.url, { MODELS_DIR: modelsDir, PARLEY_EMBEDDING_MODEL: model }),
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
  const searches: SearchRun[] = [];
  for (const n of chunkCounts) {
    console.log(`search at ${n} chunks…`);
    searches.push(searchRun(n));
  }
  if (uniformChunks > 0) {
    console.log(`search at ${uniformChunks} chunks, uniformly random vectors…`);
    searches.push(searchRun(uniformChunks, true));
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
        'Default path',
        'Exact hybrid p50 / p99 ms',
        'ANN hybrid p50 / p99 ms',
        'Hybrid CPU p99 ms, exact / ANN',
        'BM25 p99 ms',
        'Vector p99 ms, exact / ANN',
        'Recall@5 vector / hybrid',
        'Graph build s',
      ],
      searches.map((s) => [
        `${s.vectors} vectors`,
        s.chunks,
        s.chunks >= defaultAnnSettings.minChunks ? 'ANN' : 'exact',
        `${s.exact.hybrid.p50_ms} / ${s.exact.hybrid.p99_ms}`,
        `${s.ann.hybrid.p50_ms} / ${s.ann.hybrid.p99_ms}`,
        `${s.exact.hybrid_cpu.p99_ms} / ${s.ann.hybrid_cpu.p99_ms}`,
        s.bm25_only.p99_ms,
        `${s.exact.vector_only.p99_ms} / ${s.ann.vector_only.p99_ms}`,
        `${s.recall_at_5.vector} / ${s.recall_at_5.hybrid}`,
        s.graph_build_s,
      ]),
      ['left', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
    ``,
    `Exact and ANN rows are the same index in the same run (\`exact: true\` scans every vector). The default`,
    `path is the one an agent of that size takes (\`PARLEY_RAG_ANN_MIN_CHUNKS\`, default ${defaultAnnSettings.minChunks}).`,
    ``,
    markdownTable(
      ['Ingestion', 'Bytes', 'Chunks', 'Seconds (upload → ready)', 'Chunks/s'],
      [['1 MB Markdown', ingest.bytes, ingest.chunks, ingest.seconds, ingest.chunks_per_s]],
      ['left', 'right', 'right', 'right', 'right'],
    ),
  ].join('\n');
  await publishResults('rag', result, md);
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
