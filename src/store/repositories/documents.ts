import { RESP_TYPES } from 'redis';
import { isoNow } from '../../schemas/timestamps.js';
import { AppError, ConflictError, NotFoundError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import type { Chunk, DocumentRecord, DocumentStatus, DocumentType } from '../../schemas/document.js';
import { hashArgs, loadHashes } from '../hashes.js';
import type { Keys } from '../keys.js';
import { pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';
import { blobToVector, vectorToBlob } from './document-vectors.js';
import { documentFromHash } from './document-hash.js';

const createDocument = new Script('create_document');
const finishDocument = new Script('finish_document');
const failDocument = new Script('fail_document');
const deleteDocument = new Script('delete_document');
const retryDocument = new Script('retry_document');

export interface DocumentCreate {
  agent_id: string;
  name: string;
  type: DocumentType;
  sha256: string;
  embedding_model: string;
  raw: Buffer;
}

/** A ready document's chunks and their vectors (null where none is stored), as the index loads them. */
export interface StoredDocumentChunks {
  document: DocumentRecord;
  chunks: Chunk[];
  vectors: (Float32Array | null)[];
}

/**
 * RAG documents of an agent: the record (a hash), the raw upload until ingestion finishes, the
 * chunks (one JSON string) and the vectors (a hash of float32 blobs). Every key carries the agent's
 * hash tag. `agentRagVersion` counts changes to the searchable set, so indexes in every instance
 * can tell when to reload.
 */
export class DocumentRepository {
  private readonly binary: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {
    this.binary = redis.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as Redis;
  }

  /**
   * Stores the raw upload and a `processing` record. 404 when the agent does not exist; 409 with
   * `details.document_id` when the agent already has a document with the same sha256.
   */
  async create(input: DocumentCreate, now: number = Date.now()): Promise<DocumentRecord> {
    now = Math.round(now);
    const doc: DocumentRecord = {
      id: newId('document', now),
      agent_id: input.agent_id,
      name: input.name,
      type: input.type,
      size_bytes: input.raw.length,
      sha256: input.sha256,
      chunk_count: 0,
      text_chars: null,
      embedding_model: input.embedding_model,
      search_index: null,
      vectors_error: null,
      status: 'processing',
      error: null,
      created_at: isoNow(now),
      updated_at: isoNow(now),
    };
    const rawKey = this.keys.documentRaw(doc.agent_id, doc.id);
    await this.redis.set(rawKey, input.raw);
    const reply = await createDocument.run(
      this.redis,
      [
        this.keys.agent(doc.agent_id),
        this.keys.document(doc.agent_id, doc.id),
        this.keys.agentDocuments(doc.agent_id),
        this.keys.agentDocumentHashes(doc.agent_id),
        this.keys.ragAgents(),
      ],
      [doc.id, doc.sha256, now, doc.agent_id, ...hashArgs({ ...doc })],
    );
    if (reply === 'ok') return doc;
    await this.redis.del(rawKey);
    if (reply === 'no_agent') throw new NotFoundError('agent', doc.agent_id);
    if (Array.isArray(reply) && reply[0] === 'duplicate') {
      throw new ConflictError('this agent already has a document with the same content', {
        document_id: String(reply[1]),
      });
    }
    throw new AppError(500, 'internal_error', `create_document replied ${String(reply)}`);
  }

  async get(agentId: string, docId: string): Promise<DocumentRecord> {
    const h = await this.redis.hGetAll(this.keys.document(agentId, docId));
    if (Object.keys(h).length === 0) throw new NotFoundError('document', docId);
    return documentFromHash({ ...h });
  }

  /** Newest first, optionally only one status. */
  async list(agentId: string, query: PageQuery, status?: DocumentStatus): Promise<Page<DocumentRecord>> {
    return pageByScore<DocumentRecord>(
      this.redis,
      this.keys.agentDocuments(agentId),
      query,
      (ids) => this.load(agentId, ids),
      (d) => status === undefined || d.status === status,
    );
  }

  /** Every document of the agent (any status), oldest first. */
  async all(agentId: string): Promise<DocumentRecord[]> {
    const ids = await this.redis.zRange(this.keys.agentDocuments(agentId), 0, -1);
    return (await this.load(agentId, ids)).filter((d): d is DocumentRecord => d !== null);
  }

  /** Agents that have (or had) documents. */
  async agentsWithDocuments(): Promise<string[]> {
    return this.redis.sMembers(this.keys.ragAgents());
  }

  async version(agentId: string): Promise<number> {
    return Number((await this.redis.get(this.keys.agentRagVersion(agentId))) ?? 0);
  }

  /** The raw upload; null once ingestion finished (or when it was lost). */
  async raw(agentId: string, docId: string): Promise<Buffer | null> {
    const v = (await this.binary.get(this.keys.documentRaw(agentId, docId))) as unknown as Buffer | null;
    return v;
  }

  /**
   * Writes chunks and vectors made by `embeddingModel`, then marks the document ready with that
   * model and bumps the agent's RAG version (also for re-embedding a ready document). Without
   * vectors (`vectorsError`: why) it is ready on the lexical index only and keeps its raw upload
   * for the job that adds them. Returns false when the document was deleted meanwhile (nothing
   * stays behind then).
   */
  async finish(
    agentId: string,
    docId: string,
    chunks: Chunk[],
    vectors: Float32Array[],
    textChars: number,
    embeddingModel: string,
    vectorsError: string | null = null,
  ): Promise<boolean> {
    const chunksKey = this.keys.documentChunks(agentId, docId);
    const vectorsKey = this.keys.documentVectors(agentId, docId);
    const multi = this.redis.multi().del(vectorsKey).set(chunksKey, JSON.stringify(chunks));
    const perCommand = 256;
    for (let i = 0; i < vectors.length; i += perCommand) {
      const fields: Record<string, Buffer> = {};
      for (let j = i; j < Math.min(i + perCommand, vectors.length); j++)
        fields[chunks[j]!.id] = vectorToBlob(vectors[j]!);
      multi.hSet(vectorsKey, fields);
    }
    await multi.exec();
    const reply = await finishDocument.run(
      this.redis,
      [
        this.keys.document(agentId, docId),
        chunksKey,
        vectorsKey,
        this.keys.documentRaw(agentId, docId),
        this.keys.agentRagVersion(agentId),
      ],
      [
        isoNow(),
        chunks.length,
        textChars,
        embeddingModel,
        vectorsError === null ? 'hybrid' : 'lexical',
        vectorsError ?? '',
      ],
    );
    return reply !== 'missing';
  }

  /** Marks the document failed with a reason (its raw upload stays, for a retry); false when it no longer exists. */
  async fail(agentId: string, docId: string, reason: string): Promise<boolean> {
    const reply = await failDocument.run(
      this.redis,
      [
        this.keys.document(agentId, docId),
        this.keys.documentChunks(agentId, docId),
        this.keys.documentVectors(agentId, docId),
      ],
      [isoNow(), reason.slice(0, 1000)],
    );
    return reply !== 'missing';
  }

  /**
   * Puts a failed document back to `processing`. 404 when unknown; 409 when it is not failed, or
   * when its upload is no longer stored (failed before uploads were kept: upload it again).
   */
  async retry(agentId: string, docId: string): Promise<DocumentRecord> {
    const reply = await retryDocument.run(
      this.redis,
      [this.keys.document(agentId, docId), this.keys.documentRaw(agentId, docId)],
      [isoNow()],
    );
    if (reply === 'missing') throw new NotFoundError('document', docId);
    if (reply === 'no_upload')
      throw new ConflictError(
        'the upload of this document is no longer stored; upload the same content again, which replaces it',
        { document_id: docId },
      );
    if (Array.isArray(reply))
      throw new ConflictError(`only a failed document can be retried; this one is ${String(reply[1])}`, {
        document_id: docId,
        status: String(reply[1]),
      });
    return this.get(agentId, docId);
  }

  /** Deletes the document, its raw upload, chunks and vectors; 404 when it does not exist. */
  async delete(agentId: string, docId: string): Promise<void> {
    const reply = await deleteDocument.run(
      this.redis,
      [
        this.keys.document(agentId, docId),
        this.keys.agentDocuments(agentId),
        this.keys.agentDocumentHashes(agentId),
        this.keys.documentRaw(agentId, docId),
        this.keys.documentChunks(agentId, docId),
        this.keys.documentVectors(agentId, docId),
        this.keys.agentRagVersion(agentId),
      ],
      [docId],
    );
    if (reply === 'missing') throw new NotFoundError('document', docId);
  }

  /** Deletes every document of an agent (for agent deletion). */
  async deleteAll(agentId: string): Promise<void> {
    for (const doc of await this.all(agentId)) {
      await this.delete(agentId, doc.id).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
    }
    await this.redis.sRem(this.keys.ragAgents(), agentId);
  }

  /** Chunks and vectors of the agent's ready documents (optionally only some), for the in-process index. */
  async loadReady(agentId: string, only?: ReadonlySet<string>): Promise<StoredDocumentChunks[]> {
    const docs = (await this.all(agentId)).filter(
      (d) => d.status === 'ready' && (only === undefined || only.has(d.id)),
    );
    const out: StoredDocumentChunks[] = [];
    for (const document of docs) {
      const json = await this.redis.get(this.keys.documentChunks(agentId, document.id));
      if (json === null) continue;
      const chunks = JSON.parse(json) as Chunk[];
      const blobs =
        chunks.length === 0
          ? []
          : ((await this.binary.hmGet(
              this.keys.documentVectors(agentId, document.id),
              chunks.map((c) => c.id),
            )) as unknown as (Buffer | null)[]);
      out.push({ document, chunks, vectors: blobs.map((b) => (b === null ? null : blobToVector(b))) });
    }
    return out;
  }

  /** A ready document's chunks (empty when it has none or is gone). */
  async chunks(agentId: string, docId: string): Promise<Chunk[]> {
    const json = await this.redis.get(this.keys.documentChunks(agentId, docId));
    return json === null ? [] : (JSON.parse(json) as Chunk[]);
  }

  /** The raw stored vector blob of one chunk (for tests and tooling). */
  async vectorBlob(agentId: string, docId: string, chunkId: string): Promise<Buffer | null> {
    return (await this.binary.hGet(this.keys.documentVectors(agentId, docId), chunkId)) as unknown as Buffer | null;
  }

  private async load(agentId: string, ids: string[]): Promise<(DocumentRecord | null)[]> {
    return loadHashes(
      this.redis,
      ids.map((id) => this.keys.document(agentId, id)),
      documentFromHash,
    );
  }
}
