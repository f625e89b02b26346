/**
 * Hybrid search latency of one agent's in-process index at a given number of chunks, on the exact
 * scan and through the ANN graph of the same index in the same run, with recall@5 of the ANN
 * against the exact scan.
 *
 * Corpus: chunk texts of 40 content words drawn by Zipf's law (s = 1) over 20,000 words, without
 * the 50 most frequent (stop words, which the index drops anyway); queries of 5 such words.
 * Vectors (384 dimensions, unit length) have the structure of sentence embeddings, not uniform
 * noise: 200 topics, each document near one topic, each run of 10 chunks (a section) near its
 * document, each chunk near its section; a query lands near a random section. Uniformly random
 * vectors have no near neighbours to find (in 384 dimensions every vector is about as far from
 * a query as every other); `uniform: true` measures that worst case too.
 */
import { AgentIndex, type SearchOptions } from '../../src/rag/agent-index.js';
import { defaultAnnSettings } from '../../src/rag/ann-index.js';
import { summarize, type LatencySummary } from './percentiles.js';
import { round } from './report.js';

const dims = 384;
const perDoc = 1000;
const sectionChunks = 10;

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Gaussian noise of norm about `scale` (sum of uniforms: cheap and close enough). */
function noise(random: () => number, scale: number): Float32Array {
  const v = new Float32Array(dims);
  const s = (scale * 2) / Math.sqrt(dims);
  for (let i = 0; i < dims; i++) v[i] = (random() + random() + random() - 1.5) * s;
  return v;
}

function plus(a: Float32Array, b: Float32Array): Float32Array {
  return a.map((x, i) => x + b[i]!);
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const s = 1 / Math.sqrt(n);
  return v.map((x) => x * s);
}

export interface SearchRun {
  chunks: number;
  vectors: 'structured' | 'uniform';
  bm25_build_s: number;
  graph_build_s: number;
  queries: number;
  exact: { hybrid: LatencySummary; hybrid_cpu: LatencySummary; vector_only: LatencySummary };
  ann: { hybrid: LatencySummary; hybrid_cpu: LatencySummary; vector_only: LatencySummary };
  bm25_only: LatencySummary;
  /** Share of the exact top 5 the ANN path returns in its top 5 (vector ranking alone, and fused). */
  recall_at_5: { vector: number; hybrid: number };
}

export function searchRun(count: number, uniform = false): SearchRun {
  const random = rng(count);
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
  const cumulative = new Float64Array(vocabulary.length);
  let total = 0;
  for (let i = 0; i < vocabulary.length; i++) cumulative[i] = total += 1 / (i + 51);
  const word = (): string => {
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
  const topics = Array.from({ length: 200 }, () => unit(noise(random, 1)));
  const sections: Float32Array[] = [];
  const chunkVector = (section: Float32Array): Float32Array =>
    unit(uniform ? noise(random, 1) : plus(section, noise(random, 0.5)));

  // Every query takes the ANN path alone once the graph is built (minChunks 0); `exact` scans.
  const index = new AgentIndex({ ...defaultAnnSettings, minChunks: 0 });
  let start = performance.now();
  for (let d = 0; d < count / perDoc; d++) {
    const docId = `doc_${d}`;
    const doc = plus(topics[Math.floor(random() * topics.length)]!, noise(random, 0.8));
    let section = doc;
    const vectors: Float32Array[] = [];
    const chunks = Array.from({ length: perDoc }, (_, i) => {
      if (i % sectionChunks === 0) sections.push((section = plus(doc, noise(random, 0.6))));
      vectors.push(chunkVector(section));
      const text = Array.from({ length: 40 }, word).join(' ');
      return { id: `${docId}#${i}`, document_id: docId, index: i, text, start: 0, end: text.length, tokens: 40 };
    });
    index.addDocument({ id: docId, name: docId }, chunks, vectors);
    index.close(); // no background building: the graph is built below, timed
  }
  const bm25Build = (performance.now() - start) / 1000;
  start = performance.now();
  index.buildAnnNow();
  const graphBuild = (performance.now() - start) / 1000;

  const queries = Array.from({ length: 300 }, () => ({
    text: Array.from({ length: 5 }, word).join(' '),
    vector: chunkVector(sections[Math.floor(random() * sections.length)]!),
  }));
  const summary = (samples: number[]): LatencySummary => {
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
  /**
   * Wall time per query, and CPU time per query (the process's, from getrusage): on a shared machine
   * the wall p99 mostly measures the scheduler, the CPU time what a query costs.
   */
  const measure = (fn: (q: (typeof queries)[number]) => unknown): { wall: LatencySummary; cpu: LatencySummary } => {
    for (const q of queries.slice(0, 30)) fn(q); // warm-up
    const wall: number[] = [];
    const cpu: number[] = [];
    for (const q of queries) {
      const c = process.cpuUsage();
      const t = performance.now();
      fn(q);
      wall.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    return { wall: summary(wall), cpu: summary(cpu) };
  };
  const time = (fn: (q: (typeof queries)[number]) => unknown): LatencySummary => measure(fn).wall;
  const ann: SearchOptions = { k: 5, minScore: 0 };
  const exact: SearchOptions = { ...ann, exact: true };
  const hybrid = (o: SearchOptions): { hybrid: LatencySummary; hybrid_cpu: LatencySummary } => {
    const { wall, cpu } = measure((q) => index.search(q.text, q.vector, o));
    return { hybrid: wall, hybrid_cpu: cpu };
  };
  const recall = (text: (q: (typeof queries)[number]) => string): number => {
    let found = 0;
    for (const q of queries) {
      const want = new Set(index.search(text(q), q.vector, exact).map((h) => h.chunk_id));
      found += index.search(text(q), q.vector, ann).filter((h) => want.has(h.chunk_id)).length / want.size;
    }
    return round(found / queries.length, 3);
  };
  return {
    chunks: count,
    vectors: uniform ? 'uniform' : 'structured',
    bm25_build_s: round(bm25Build, 1),
    graph_build_s: round(graphBuild, 1),
    queries: queries.length,
    exact: { ...hybrid(exact), vector_only: time((q) => index.search('', q.vector, exact)) },
    ann: { ...hybrid(ann), vector_only: time((q) => index.search('', q.vector, ann)) },
    bm25_only: time((q) => index.search(q.text, null, ann)),
    recall_at_5: { vector: recall(() => ''), hybrid: recall((q) => q.text) },
  };
}
