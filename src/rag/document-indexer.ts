import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import type { Chunk, DocumentRecord } from '../schemas/document.js';
import type { Store } from '../store/store.js';
import type { Embedder } from './embedding/embedder.js';
import { EmbeddingPool } from './embedding/embedding-pool.js';
import type { ChunkOptions, TextChunk } from './chunker.js';
import { extractDocumentText } from './extract.js';

export interface DocumentIndexerOptions {
  store: Store;
  embedderFor: (agentId: string) => Promise<Embedder>;
  logger: Logger;
  chunk: ChunkOptions;
  onReady?: (agentId: string, documentId: string) => void;
}

/** What `index` did: false when the document was deleted meanwhile. */
export interface IndexOutcome {
  ready: boolean;
  /** The document has vectors (`hybrid`), or the lexical index only. */
  hybrid: boolean;
}

function numbered(docId: string, pieces: TextChunk[]): Chunk[] {
  return pieces.map((p, index) => ({ id: `${docId}#${index}`, document_id: docId, index, ...p }));
}

/**
 * Turns a document's extracted text into its searchable form. With a usable embedding model:
 * chunks by the model's tokenizer and vectors (`hybrid`). Without one (no model folder under
 * MODELS_DIR, no API configured, or embedding failed on the job's last attempt): chunks with token
 * counts estimated at 4 characters each, on the lexical (BM25) index alone, the reason kept in
 * `vectors_error`; the raw upload stays so `addVectors` can chunk it again with the model's
 * tokenizer once one is usable. A missing model never fails a document.
 */
export class DocumentIndexer {
  /** Chunking without a model's tokenizer: one worker thread, started on first use. */
  private readonly estimatingPool = new EmbeddingPool({ size: 1, modelDir: null, threads: 1 });

  constructor(private readonly o: DocumentIndexerOptions) {}

  /** Indexes a `processing` document's text; on the job's last attempt an embedding failure leaves it lexical. */
  async index(agentId: string, docId: string, text: string, lastAttempt: boolean): Promise<IndexOutcome> {
    const docs = this.o.store.documents;
    const embedder = await this.o.embedderFor(agentId);
    let vectorsError = await embedder.unavailable();
    if (vectorsError === null) {
      try {
        const chunks = numbered(docId, await embedder.chunk(text, this.o.chunk));
        const vectors = await embedder.embed(chunks.map((c) => c.text));
        const ready = await docs.finish(agentId, docId, chunks, vectors, text.length, embedder.label);
        if (ready)
          this.o.logger.info({ agent_id: agentId, document_id: docId, chunks: chunks.length }, 'document ready');
        return { ready, hybrid: true };
      } catch (err) {
        if (!lastAttempt) throw err;
        this.o.logger.warn({ err, agent_id: agentId, document_id: docId }, 'embedding failed on the last attempt');
        vectorsError =
          `${embedder.label} could not embed this document (the server log has the cause); its vectors are ` +
          "added once it can: after a restart or a change of the agent's embeddings";
      }
    }
    const chunks = numbered(docId, await this.estimatingPool.chunk(text, this.o.chunk));
    const ready = await docs.finish(agentId, docId, chunks, [], text.length, embedder.label, vectorsError);
    if (ready) {
      this.o.logger.warn(
        { agent_id: agentId, document_id: docId, chunks: chunks.length, reason: vectorsError },
        'document ready on the lexical index only (no vectors)',
      );
    }
    return { ready, hybrid: false };
  }

  /**
   * Gives a ready document vectors of the agent's current model: a `lexical` one is chunked again
   * from its stored upload with the model's tokenizer, a `hybrid` one of another model has its
   * stored chunks embedded again. Returns true when the document changed; false when there is
   * nothing to do (deleted, already current, or still no usable model: it stays as it is).
   */
  async addVectors(agentId: string, docId: string): Promise<boolean> {
    const docs = this.o.store.documents;
    // Deleted meanwhile: nothing to do. Any other failure (Redis) fails the job, so BullMQ tries it again.
    const doc = await docs.get(agentId, docId).catch(nullIfNotFound);
    if (doc === null || doc.status !== 'ready') return false;
    const embedder = await this.o.embedderFor(agentId);
    if (!needsVectors(doc, embedder.label)) return false;
    const missing = await embedder.unavailable();
    if (missing !== null) {
      this.o.logger.info({ agent_id: agentId, document_id: docId, reason: missing }, 'vectors not added: no model');
      return false;
    }
    const raw = doc.search_index === 'lexical' ? await docs.raw(agentId, docId) : null;
    let chunks: Chunk[];
    let textChars = doc.text_chars ?? 0;
    if (raw !== null) {
      const text = await extractDocumentText(doc.type, raw);
      chunks = numbered(docId, await embedder.chunk(text, this.o.chunk));
      textChars = text.length;
    } else chunks = await docs.chunks(agentId, docId);
    const vectors = await embedder.embed(chunks.map((c) => c.text));
    if (!(await docs.finish(agentId, docId, chunks, vectors, textChars, embedder.label))) return false;
    this.o.logger.info(
      {
        agent_id: agentId,
        document_id: docId,
        from: `${doc.embedding_model} (${doc.search_index})`,
        to: embedder.label,
      },
      'document vectors made',
    );
    this.o.onReady?.(agentId, docId);
    return true;
  }

  close(): Promise<void> {
    return this.estimatingPool.close();
  }
}

/** A ready document without vectors, or with vectors of another model than `label`. */
export function needsVectors(doc: Pick<DocumentRecord, 'search_index' | 'embedding_model'>, label: string): boolean {
  return doc.search_index === 'lexical' || doc.embedding_model !== label;
}
