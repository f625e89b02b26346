import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { RagConfig } from '../config.js';
import type { EventOutbox } from '../events/outbox.js';
import type { StoredAgent } from '../records/agent.js';
import type { DocumentRecord, DocumentType, SearchHit } from '../records/document.js';
import type { Store } from '../store/store.js';
import { LocalEmbedder, OpenAiEmbedder, type Embedder } from './embedder.js';
import { verifyDocument } from './extract.js';
import { Ingestion } from './ingestion.js';
import { RagIndex } from './rag-index.js';

export interface RagServiceOptions {
  config: RagConfig;
  modelsDir: string;
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

export function createEmbedder(config: RagConfig, modelsDir: string): Embedder {
  const e = config.embedding;
  if (e.provider === 'openai') {
    return new OpenAiEmbedder(
      { apiKey: e.apiKey, baseUrl: e.baseUrl, model: e.model, batchSize: e.batchSize, timeoutMs: e.timeoutMs },
      modelsDir,
    );
  }
  return new LocalEmbedder({
    modelsDir,
    model: e.model,
    workers: e.workers,
    threadsPerWorker: e.threadsPerWorker,
    batchSize: e.batchSize,
  });
}

/** Chunks joined for the webhook and the prompt: each under its document's name. */
export function formatContext(hits: SearchHit[]): string | null {
  if (hits.length === 0) return null;
  return hits.map((h) => `[${h.document_name}]\n${h.text}`).join('\n\n');
}

/**
 * RAG for every agent: uploads (verified, deduplicated by sha256, queued for ingestion), deletes,
 * hybrid search, and the context for a user's turn. Chat and voice both call `retrieveContext`.
 */
export class RagService {
  readonly embedder: Embedder;
  readonly index: RagIndex;
  readonly ingestion: Ingestion;

  constructor(private readonly o: RagServiceOptions) {
    this.embedder = createEmbedder(o.config, o.modelsDir);
    this.index = new RagIndex(o.store.documents, o.logger);
    this.ingestion = new Ingestion({
      redisUrl: o.redisUrl,
      redisTimeoutMs: o.redisTimeoutMs,
      prefix: o.prefix,
      store: o.store,
      embedder: this.embedder,
      logger: o.logger,
      chunk: { maxTokens: o.config.chunkTokens, overlapTokens: o.config.chunkOverlapTokens },
      concurrency: o.config.ingestConcurrency,
      lockMs: o.config.jobLockMs,
      onReady: (agentId) => void this.refreshIndex(agentId),
    });
  }

  /** Starts the ingestion worker, re-queues orphaned uploads and loads indexes (in the background). */
  start(): void {
    this.ingestion.start();
    void (async () => {
      try {
        if (this.o.config.ingestConcurrency > 0) await this.ingestion.resume();
        await this.index.warm();
      } catch (err) {
        this.o.logger.warn({ err }, 'RAG start-up tasks failed');
      }
    })();
  }

  /** Verifies, stores and queues a document; answers with its `processing` record. */
  async upload(agentId: string, upload: DocumentUpload): Promise<DocumentRecord> {
    await verifyDocument(upload.type, upload.raw);
    const sha256 = createHash('sha256').update(upload.raw).digest('hex');
    const doc = await this.o.store.documents.create({
      agent_id: agentId,
      name: upload.name,
      type: upload.type,
      sha256,
      embedding_model: this.embedder.label,
      raw: upload.raw,
    });
    try {
      await this.ingestion.enqueue(agentId, doc.id);
    } catch (err) {
      // The record and raw bytes are stored: Ingestion re-queues it once Redis answers again.
      this.o.logger.warn({ err, document_id: doc.id }, 'could not queue document for ingestion');
    }
    return doc;
  }

  async delete(agentId: string, docId: string): Promise<void> {
    await this.o.store.documents.delete(agentId, docId);
    await this.refreshIndex(agentId);
  }

  /** Reloads an agent's in-process search index after its documents changed; a failure is logged and the next search retries. */
  private async refreshIndex(agentId: string): Promise<void> {
    await this.index
      .forAgent(agentId)
      .catch((err: unknown) =>
        this.o.logger.warn(
          { err, agent_id: agentId },
          'could not refresh the search index; the next search reloads it',
        ),
      );
  }

  /**
   * Hybrid search over the agent's ready documents. The query embedding is skipped (BM25 only)
   * when the embedder fails, so retrieval degrades instead of failing a turn.
   */
  async search(agentId: string, query: string, k: number = this.o.config.topK): Promise<SearchHit[]> {
    const index = await this.index.forAgent(agentId);
    if (index.chunkCount === 0) return [];
    let vector: Float32Array | null = null;
    if (index.vectorDims !== undefined) {
      try {
        [vector] = (await this.embedder.embed([query])) as [Float32Array];
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
      chunks = await this.search(agent.id, query);
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
    await this.ingestion.close(force);
    await this.embedder.close();
  }
}
