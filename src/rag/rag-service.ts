import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { RagConfig } from '../config/config.js';
import type { EventOutbox } from '../events/outbox.js';
import type { Embedder } from './embedding/embedder.js';
import type { Embedders } from './embedding/embedders.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { DocumentRecord, DocumentType, SearchHit } from '../schemas/document.js';
import type { Store } from '../store/store.js';
import { verifyDocument } from './extract.js';
import { Ingestion } from './ingestion.js';
import { defaultAnnSettings } from './ann-index.js';
import { RagIndex } from './rag-index.js';

export interface RagServiceOptions {
  config: RagConfig;
  /** Embedders by preset section; the service closes them. */
  embedders: Embedders;
  redisUrl: string;
  /** How long queueing a document may wait on Redis (PARLEY_REDIS_TIMEOUT_MS). */
  redisTimeoutMs?: number;
  prefix: string;
  store: Store;
  logger: Logger;
  outbox?: EventOutbox;
}

export interface DocumentUpload {
  name: string;
  type: DocumentType;
  raw: Buffer;
}

export interface RetrievedContext {
  /** The chunks as one string for the webhook (`data.context`) and the prompt; null when RAG is off or nothing matched. */
  context: string | null;
  chunks: SearchHit[];
}

/** Chunks joined for the webhook and the prompt: each under its document's name. */
export function formatContext(hits: SearchHit[]): string | null {
  if (hits.length === 0) return null;
  return hits.map((h) => `[${h.document_name}]\n${h.text}`).join('\n\n');
}

/**
 * RAG for every agent: uploads (verified, deduplicated by sha256, queued for ingestion), deletes,
 * hybrid search, and the context for a user's turn. Chat and voice both call `retrieveContext`.
 *
 * Each agent's documents and queries are embedded by the model its preset's `embeddings` section
 * names (the deployment default without a preset). When that changes, the agent's documents are
 * re-embedded in the background (`embeddingsChanged`, and on every start).
 */
export class RagService {
  readonly index: RagIndex;
  readonly ingestion: Ingestion;

  constructor(private readonly o: RagServiceOptions) {
    this.index = new RagIndex(o.store.documents, o.logger, { ...defaultAnnSettings, minChunks: o.config.annMinChunks });
    this.ingestion = new Ingestion({
      redisUrl: o.redisUrl,
      redisTimeoutMs: o.redisTimeoutMs,
      prefix: o.prefix,
      store: o.store,
      embedderFor: async (agentId) => this.embedderFor(await this.agent(agentId)),
      logger: o.logger,
      chunk: { maxTokens: o.config.chunkTokens, overlapTokens: o.config.chunkOverlapTokens },
      concurrency: o.config.ingestConcurrency,
      lockMs: o.config.jobLockMs,
      onReady: (agentId) => void this.refreshIndex(agentId),
    });
  }

  /**
   * The embedder of an agent's documents and queries: its preset's `embeddings` section, or the
   * deployment default (`PARLEY_EMBEDDING_*`) for an agent without a preset.
   */
  async embedderFor(agent: Pick<StoredAgent, 'preset_id'>): Promise<Embedder> {
    if (agent.preset_id === null) return this.o.embedders.get(null);
    return this.o.embedders.get((await this.o.store.presets.getStored(agent.preset_id)).embeddings);
  }

  /**
   * Starts the ingestion worker, re-queues orphaned uploads, queues re-embedding of documents
   * whose model is no longer their agent's (the default may have changed), and loads indexes (in
   * the background).
   */
  start(): void {
    this.ingestion.start();
    void (async () => {
      try {
        if (this.o.config.ingestConcurrency > 0) {
          await this.ingestion.resume();
          for (const agentId of await this.o.store.documents.agentsWithDocuments()) await this.reembedStale(agentId);
        }
        await this.index.warm(async (agentId) => (await this.embedderFor(await this.agent(agentId))).label);
      } catch (err) {
        this.o.logger.warn({ err }, 'RAG start-up tasks failed');
      }
    })();
  }

  /**
   * An agent's embedding model may have changed (its preset's `embeddings` section, or the agent's
   * preset): queues re-embedding of its documents made with another model, in the background.
   */
  embeddingsChanged(change: { presetId: string } | { agentId: string }): void {
    void (async () => {
      const agentIds = 'presetId' in change ? await this.o.store.presets.agentIds(change.presetId) : [change.agentId];
      for (const agentId of agentIds) await this.reembedStale(agentId);
    })().catch((err: unknown) => this.o.logger.error({ err, ...change }, 'could not queue re-embedding'));
  }

  /**
   * Verifies, stores and queues a document; answers with its `processing` record. The same content
   * as a ready or processing document of the agent is 409; the same as a failed one replaces it
   * (the failed document is deleted), so a failure never blocks uploading the content again.
   */
  async upload(agentId: string, upload: DocumentUpload): Promise<DocumentRecord> {
    await verifyDocument(upload.type, upload.raw);
    const embedder = await this.embedderFor(await this.agent(agentId));
    const create = {
      agent_id: agentId,
      name: upload.name,
      type: upload.type,
      sha256: createHash('sha256').update(upload.raw).digest('hex'),
      embedding_model: embedder.label,
      raw: upload.raw,
    };
    let doc: DocumentRecord;
    try {
      doc = await this.o.store.documents.create(create);
    } catch (err) {
      const failed = await this.failedDuplicate(agentId, err);
      if (failed === null) throw err;
      await this.delete(agentId, failed).catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) throw e; // deleted meanwhile: nothing to replace
      });
      this.o.logger.info({ agent_id: agentId, replaced: failed }, 'upload replaces a failed document');
      doc = await this.o.store.documents.create(create);
    }
    try {
      await this.ingestion.enqueue(agentId, doc.id);
    } catch (err) {
      // The record and raw bytes are stored: Ingestion re-queues it once Redis answers again.
      this.o.logger.warn({ err, document_id: doc.id }, 'could not queue document for ingestion');
    }
    return doc;
  }

  /** Queues a failed document again (its stored upload); 404 unknown, 409 not failed or upload gone. */
  async retry(agentId: string, docId: string): Promise<DocumentRecord> {
    await this.ingestion.retry(agentId, docId);
    return this.o.store.documents.get(agentId, docId);
  }

  async delete(agentId: string, docId: string): Promise<void> {
    await this.o.store.documents.delete(agentId, docId);
    await this.refreshIndex(agentId);
  }

  /**
   * Hybrid search over the agent's ready documents. The query embedding is skipped (BM25 only)
   * when the embedder fails, so retrieval degrades instead of failing a turn.
   */
  async search(agentId: string, query: string, k: number = this.o.config.topK): Promise<SearchHit[]> {
    return this.searchAs(await this.agent(agentId), query, k);
  }

  private async searchAs(agent: StoredAgent, query: string, k: number): Promise<SearchHit[]> {
    const agentId = agent.id;
    const embedder = await this.embedderFor(agent);
    const index = await this.index.forAgent(agentId, embedder.label);
    if (index.chunkCount === 0) return [];
    let vector: Float32Array | null = null;
    if (index.vectorDims !== undefined) {
      try {
        [vector] = (await embedder.embed([query])) as [Float32Array];
      } catch (err) {
        this.o.logger.warn({ err, agent_id: agentId }, 'query embedding failed; BM25 only');
      }
    }
    return index.search(query, vector, { k, minScore: this.o.config.minScore });
  }

  /**
   * Context for one user turn (chat message or voice utterance): null when the agent has RAG off.
   * When on, emits `context_retrieved` with the query and the chunks' ids and scores. A retrieval
   * failure is logged and gives null context, never a failed turn.
   */
  async retrieveContext(agent: StoredAgent, query: string, sessionId?: string): Promise<RetrievedContext> {
    if (!agent.rag_enabled) return { context: null, chunks: [] };
    let chunks: SearchHit[] = [];
    try {
      chunks = await this.searchAs(agent, query, this.o.config.topK);
    } catch (err) {
      this.o.logger.warn({ err, agent_id: agent.id }, 'RAG retrieval failed; answering without context');
    }
    if (sessionId !== undefined) {
      this.o.outbox?.emit(agent, 'context_retrieved', sessionId, {
        query,
        chunks: chunks.map((c) => ({ id: c.chunk_id, document_id: c.document_id, score: c.score })),
      });
    }
    return { context: formatContext(chunks), chunks };
  }

  /** Stops ingestion (abandoning a running job to the next instance when forced) and the workers. */
  async close(force = true): Promise<void> {
    this.index.close();
    await this.ingestion.close(force);
    await this.o.embedders.close();
  }

  /** The id of the failed document a 409 of `create` points at; null for any other error. */
  private async failedDuplicate(agentId: string, err: unknown): Promise<string | null> {
    if (!(err instanceof ConflictError)) return null;
    const id = (err.details as { document_id?: unknown } | undefined)?.document_id;
    if (typeof id !== 'string') return null;
    // Unreadable now (deleted meanwhile, Redis): the original 409 stands.
    const existing = await this.o.store.documents.get(agentId, id).catch(() => null);
    return existing?.status === 'failed' ? id : null;
  }

  private agent(agentId: string): Promise<StoredAgent> {
    return this.o.store.agents.getStored(agentId);
  }

  private async reembedStale(agentId: string): Promise<void> {
    try {
      const queued = await this.ingestion.reembedStale(agentId);
      if (queued > 0)
        this.o.logger.info({ agent_id: agentId, documents: queued }, 'embedding model changed; re-embedding');
    } catch (err) {
      this.o.logger.warn({ err, agent_id: agentId }, 'could not check documents for re-embedding');
    }
  }

  /** Brings the agent's index up to date after a change; a failure is logged (the next search retries). */
  private async refreshIndex(agentId: string): Promise<void> {
    try {
      const { label } = await this.embedderFor(await this.agent(agentId));
      await this.index.forAgent(agentId, label);
    } catch (err) {
      this.o.logger.warn({ err, agent_id: agentId }, 'could not refresh RAG index');
    }
  }
}
