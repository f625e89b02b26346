import type { Logger } from 'pino';
import type { DocumentRecord } from '../schemas/document.js';
import type { DocumentRepository } from '../store/repositories/documents.js';
import { AgentIndex } from './agent-index.js';
import type { AnnSettings } from './ann-index.js';

interface Loaded {
  index: AgentIndex;
  /** The embedding model whose vectors the index holds. */
  model: string;
  /** Each loaded document's embedding model and search index when it was loaded (`loadedAs`). */
  documentModels: Map<string, string>;
}

/**
 * The in-process indexes of every agent with documents, kept in step with Redis by a per-agent
 * version counter (`agentRagVersion`), which every change to the searchable set bumps atomically
 * with the change itself. Before each search the index reads the counter (one GET); when it moved,
 * it drops documents that are gone or re-embedded and loads the new ones. That holds across
 * instances without pub/sub (no message to miss during a reconnect), at the cost of one round trip
 * per search.
 *
 * An index holds the vectors of one embedding model, the agent's current one: documents embedded
 * with another model (not yet re-embedded) are searched by BM25 only, since vectors of two models
 * cannot be compared. When the agent's model changes, its index is rebuilt.
 *
 * Vectors are searched exactly below `ann.minChunks` per agent and through an HNSW graph from
 * there (see `VectorIndex`); the graph lives in this process only and is built from the vectors
 * read from Redis, so a start, another instance or a model change rebuilds it the same way.
 */
/** What a loaded document's chunks and vectors depend on: a change of either reloads it. */
function loadedAs(d: Pick<DocumentRecord, 'embedding_model' | 'search_index'>): string {
  return `${d.embedding_model}\u0000${d.search_index ?? ''}`;
}

export class RagIndex {
  private readonly indexes = new Map<string, Loaded>();
  private readonly syncing = new Map<string, Promise<AgentIndex>>();

  constructor(
    private readonly documents: DocumentRepository,
    private readonly logger: Logger,
    private readonly ann: AnnSettings,
  ) {}

  /** The agent's index for queries embedded by `model` (an embedder label), brought up to date first. */
  async forAgent(agentId: string, model: string): Promise<AgentIndex> {
    const version = await this.documents.version(agentId);
    const current = this.indexes.get(agentId);
    if (current !== undefined && current.model === model && current.index.version === version) return current.index;
    const key = `${agentId}\u0000${model}`;
    let running = this.syncing.get(key);
    if (running === undefined) {
      running = this.sync(agentId, version, model).finally(() => this.syncing.delete(key));
      this.syncing.set(key, running);
    }
    return running;
  }

  /** Loads every agent's index (on start), so the first search does not pay for it. */
  async warm(modelOf: (agentId: string) => Promise<string>): Promise<void> {
    for (const agentId of await this.documents.agentsWithDocuments()) {
      try {
        await this.forAgent(agentId, await modelOf(agentId));
      } catch (err) {
        this.logger.warn({ err, agent_id: agentId }, 'could not load RAG index');
      }
    }
  }

  /** Chunks held for an agent (0 when not loaded). */
  loadedChunks(agentId: string): number {
    return this.indexes.get(agentId)?.index.chunkCount ?? 0;
  }

  /** The agent's loaded index, as it is now (no sync); undefined when not loaded. */
  loaded(agentId: string): AgentIndex | undefined {
    return this.indexes.get(agentId)?.index;
  }

  /** Stops background graph building of every index. */
  close(): void {
    for (const { index } of this.indexes.values()) index.close();
  }

  private async sync(agentId: string, version: number, model: string): Promise<AgentIndex> {
    const previous = this.indexes.get(agentId);
    const loaded: Loaded =
      previous !== undefined && previous.model === model
        ? previous
        : { index: new AgentIndex(this.ann), model, documentModels: new Map() };
    if (previous !== undefined && previous !== loaded) previous.index.close(); // the model changed
    const { index, documentModels } = loaded;
    const ready = new Map(
      (await this.documents.all(agentId)).filter((d) => d.status === 'ready').map((d) => [d.id, loadedAs(d)]),
    );
    for (const id of index.documentIds()) {
      if (ready.get(id) === documentModels.get(id)) continue; // unchanged
      index.removeDocument(id); // deleted, re-embedded or given vectors since it was loaded
      documentModels.delete(id);
    }
    const missing = new Set([...ready.keys()].filter((id) => !index.hasDocument(id)));
    if (missing.size > 0) {
      for (const { document, chunks, vectors } of await this.documents.loadReady(agentId, missing)) {
        const usable = document.embedding_model === model ? vectors : chunks.map(() => null);
        index.addDocument(document, chunks, usable);
        documentModels.set(document.id, loadedAs(document));
      }
    }
    index.version = version;
    if (index.documentIds().length === 0) {
      index.close();
      this.indexes.delete(agentId);
    } else this.indexes.set(agentId, loaded);
    return index;
  }
}
