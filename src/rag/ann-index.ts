import { Index, MetricKind, ScalarKind } from 'usearch';

/** How an agent's vectors are searched: an exact scan below `minChunks`, an HNSW graph (usearch) from there. */
export interface AnnSettings {
  /** Vectors at which an agent gets an ANN index (0: always; `Infinity`: never). */
  minChunks: number;
  /** HNSW edges per node (usearch `connectivity`). */
  connectivity: number;
  /** Candidate list while inserting (`expansion_add`): higher builds slower, a better graph. */
  expansionAdd: number;
  /** Candidate list while searching (`expansion_search`), at least the candidates asked for. */
  expansionSearch: number;
  /** Longest slice of graph building on the event loop before it yields (ms). */
  sliceMs: number;
}

export const defaultAnnSettings: AnnSettings = {
  minChunks: 20_000,
  connectivity: 16,
  expansionAdd: 256,
  expansionSearch: 256,
  sliceMs: 5,
};

/** A hit of a vector search: the chunk's key and its cosine similarity with the query. */
export interface VectorHit {
  key: number;
  score: number;
}

/**
 * An HNSW graph over unit vectors (usearch, cosine metric, float32 so scores are exact), keyed by
 * the chunk keys of an `AgentIndex`. Removal leaves a tombstone in the graph; `tombstones` counts
 * them so the owner can rebuild when too many accumulate.
 */
export class AnnIndex {
  private readonly index: Index;
  private readonly keyBuffer = new BigUint64Array(1);
  /** Vectors removed since the graph was built. */
  tombstones = 0;

  constructor(
    readonly dims: number,
    settings: AnnSettings,
  ) {
    this.index = new Index({
      dimensions: dims,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: settings.connectivity,
      expansion_add: settings.expansionAdd,
      expansion_search: settings.expansionSearch,
      multi: false,
    });
  }

  /** Vectors held (removed ones excluded). */
  get size(): number {
    return this.index.size();
  }

  /** Adds one vector on the calling thread (usearch with one thread: the slice stays short). */
  add(key: number, vector: Float32Array): void {
    this.keyBuffer[0] = BigInt(key);
    this.index.add(this.keyBuffer, vector, 1);
  }

  remove(keys: number[]): void {
    if (keys.length === 0) return;
    this.index.remove(BigUint64Array.from(keys, BigInt));
    this.tombstones += keys.length;
  }

  /** The `n` nearest vectors, best first. */
  search(query: Float32Array, n: number): VectorHit[] {
    const size = this.size;
    if (size === 0 || n <= 0) return [];
    const { keys, distances } = this.index.search(query, Math.min(n, size), 1);
    const hits: VectorHit[] = [];
    for (let i = 0; i < keys.length; i++) hits.push({ key: Number(keys[i]), score: 1 - distances[i]! });
    return hits;
  }
}
