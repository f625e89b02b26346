import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { NotFoundError } from '../errors.js';
import { bullConnection, closeQueue } from '../store/bullmq.js';
import type { Chunk } from '../records/document.js';
import type { Store } from '../store/store.js';
import type { Embedder } from '../providers/embedder.js';
import type { ChunkOptions } from './chunker.js';
import { DocumentError, extractDocumentText } from './extract.js';

export interface IngestionOptions {
  redisUrl: string;
  /** How long queueing a job may wait on Redis before it fails (the upload still answers); default 1 s. */
  redisTimeoutMs?: number;
  prefix: string;
  store: Store;
  /** The embedder an agent's documents use now (its preset's `embeddings`, or the default). */
  embedderFor: (agentId: string) => Promise<Embedder>;
  logger: Logger;
  chunk: ChunkOptions;
  /** Jobs this instance runs at once; 0 runs none. */
  concurrency: number;
  /** How long a job's lock lasts without renewal; a crashed instance's job is retried after it. */
  lockMs: number;
  /** Called after a document became ready (to refresh the local index at once). */
  onReady?: (agentId: string, documentId: string) => void;
}

interface IngestJob {
  agent_id: string;
  document_id: string;
}

const attempts = 3;
/** How often orphaned documents are re-queued while Redis refuses the job. */
const resumeRetryMs = 2_000;
/** Re-embedding rounds one job runs when the agent's embedding model changes again meanwhile. */
const reembedRounds = 3;

/**
 * Document ingestion off the request path: a durable BullMQ queue in Redis. The upload stores the
 * raw bytes and queues a job; a worker extracts, chunks, embeds, writes chunks and vectors, marks
 * the document ready and deletes the raw bytes. A job interrupted by a crash or restart is picked
 * up again (by this or another instance) once its lock expires; one queued when no worker ran
 * waits for the next. Unreadable documents fail at once; other errors retry twice, then fail.
 *
 * When an agent's embedding model changes (its preset's `embeddings`, its preset, or the default),
 * `reembedStale` queues a `reembed` job per ready document made with another model: the stored
 * chunks are embedded again with the new model and swapped in atomically. Until then the
 * document stays searchable by BM25 only (vectors of two models are never compared).
 */
export class Ingestion {
  private readonly queue: Queue<IngestJob>;
  private worker: Worker<IngestJob> | undefined;
  /** Jobs this instance is running now. */
  private running = 0;
  /** Set while a re-queue of orphaned documents waits to run (after a failed enqueue). */
  private resumeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: IngestionOptions) {
    this.queue = new Queue<IngestJob>('rag-ingest', {
      // Uploads await `enqueue`: it must fail fast while Redis is down, not hang the request.
      connection: bullConnection(o.redisUrl, { failFastMs: o.redisTimeoutMs ?? 1_000 }),
      prefix: `${o.prefix}:bull`,
      defaultJobOptions: {
        attempts,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: true,
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', (err) => o.logger.warn({ err: err.message }, 'ingestion queue error'));
  }

  /**
   * Queues a document; idempotent (the job id is the document id). When Redis cannot take the job
   * it throws, and the document (stored as `processing`) is re-queued by `resume()` once Redis
   * answers again, retried every few seconds.
   */
  async enqueue(agentId: string, documentId: string): Promise<void> {
    try {
      await this.queue.add('ingest', { agent_id: agentId, document_id: documentId }, { jobId: documentId });
    } catch (err) {
      this.resumeLater();
      throw err;
    }
  }

  private resumeLater(): void {
    if (this.resumeTimer !== undefined || this.closed) return;
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      this.resume().then(
        (queued) => {
          if (queued > 0) this.o.logger.info({ queued }, 're-queued documents left without a job');
        },
        (err: unknown) => {
          this.o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 're-queue failed; will retry');
          this.resumeLater();
        },
      );
    }, resumeRetryMs);
    this.resumeTimer.unref();
  }

  /**
   * Queues re-embedding of the agent's ready documents whose vectors another model made; returns
   * how many. Idempotent: a document already queued is not queued twice.
   */
  async reembedStale(agentId: string): Promise<number> {
    const { label } = await this.o.embedderFor(agentId);
    let queued = 0;
    for (const doc of await this.o.store.documents.all(agentId)) {
      if (doc.status !== 'ready' || doc.embedding_model === label) continue;
      await this.queue.add(
        'reembed',
        { agent_id: agentId, document_id: doc.id },
        // A failed re-embedding leaves the document ready (BM25 only); a later change may retry it.
        { jobId: `reembed-${doc.id}`, removeOnFail: true },
      );
      queued++;
    }
    return queued;
  }

  start(): void {
    if (this.worker !== undefined || this.o.concurrency === 0) return;
    const worker = new Worker<IngestJob>('rag-ingest', (job) => this.tracked(job), {
      connection: bullConnection(this.o.redisUrl),
      prefix: `${this.o.prefix}:bull`,
      concurrency: this.o.concurrency,
      lockDuration: this.o.lockMs,
      stalledInterval: this.o.lockMs,
      maxStalledCount: 3,
    });
    worker.on('failed', (job, err) => {
      if (job === undefined) return;
      if (job.name === 'reembed') {
        this.o.logger.warn(
          { document_id: job.data.document_id, attempt: job.attemptsMade, err: err.message },
          're-embedding failed; the document stays searchable by BM25 only until it succeeds',
        );
        return;
      }
      if (job.attemptsMade < attempts) {
        this.o.logger.warn(
          { document_id: job.data.document_id, attempt: job.attemptsMade, err: err.message },
          'ingestion failed; will retry',
        );
        return;
      }
      void this.fail(job.data, `ingestion failed after ${job.attemptsMade} attempts: ${err.message}`);
    });
    worker.on('error', (err) => this.o.logger.warn({ err: err.message }, 'ingestion worker error'));
    this.worker = worker;
  }

  /** Re-queues documents left `processing` without a job (e.g. a crash between upload and queueing). */
  async resume(): Promise<number> {
    let queued = 0;
    for (const agentId of await this.o.store.documents.agentsWithDocuments()) {
      for (const doc of await this.o.store.documents.all(agentId)) {
        if (doc.status !== 'processing') continue;
        const job = await this.queue.getJob(doc.id);
        if (job !== undefined && job !== null) continue;
        await this.enqueue(agentId, doc.id);
        queued++;
      }
    }
    return queued;
  }

  /** Jobs waiting, delayed or running. */
  async backlog(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async activeJobs(): Promise<number> {
    return this.queue.getActiveCount();
  }

  /**
   * Stops taking jobs. With `force`, a running job is abandoned, not awaited: its lock expires and
   * another instance (or this one, restarted) runs it again.
   */
  async close(force = false): Promise<void> {
    this.closed = true;
    clearTimeout(this.resumeTimer);
    // A forced close of an idle worker only races its blocking read; close that one gently.
    await closeQueue(this.queue, this.worker, { force: force && this.running > 0 });
  }

  private async tracked(job: Job<IngestJob>): Promise<void> {
    this.running++;
    try {
      if (job.name === 'reembed') await this.reembed(job.data);
      else await this.process(job);
    } finally {
      this.running--;
    }
  }

  private async process(job: Job<IngestJob>): Promise<void> {
    const { agent_id: agentId, document_id: docId } = job.data;
    const docs = this.o.store.documents;
    // Deleted meanwhile: nothing to do. Any other failure (Redis) fails the job, so BullMQ tries it again.
    const doc = await docs.get(agentId, docId).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    if (doc === null || doc.status !== 'processing') return; // deleted, or already done
    const raw = await docs.raw(agentId, docId);
    if (raw === null) {
      await docs.fail(agentId, docId, 'the upload was lost before it was processed; upload it again');
      return;
    }
    let text: string;
    try {
      text = await extractDocumentText(doc.type, raw);
    } catch (err) {
      if (err instanceof DocumentError) {
        await docs.fail(agentId, docId, err.message);
        return;
      }
      throw err;
    }
    const embedder = await this.o.embedderFor(agentId);
    const pieces = await embedder.chunk(text, this.o.chunk);
    const chunks: Chunk[] = pieces.map((p, index) => ({ id: `${docId}#${index}`, document_id: docId, index, ...p }));
    const vectors = await embedder.embed(chunks.map((c) => c.text));
    if (await docs.finish(agentId, docId, chunks, vectors, text.length, embedder.label)) {
      this.o.logger.info({ agent_id: agentId, document_id: docId, chunks: chunks.length }, 'document ready');
      this.o.onReady?.(agentId, docId);
      // The model changed while this document was being embedded: do it again with the new one.
      if ((await this.o.embedderFor(agentId)).label !== embedder.label) await this.reembedStale(agentId);
    }
  }

  /** Embeds a ready document's stored chunks again with the agent's current model. */
  private async reembed({ agent_id: agentId, document_id: docId }: IngestJob): Promise<void> {
    const docs = this.o.store.documents;
    for (let round = 0; round < reembedRounds; round++) {
      const doc = await docs.get(agentId, docId).catch(() => null);
      if (doc === null || doc.status !== 'ready') return; // deleted meanwhile
      const embedder = await this.o.embedderFor(agentId);
      if (doc.embedding_model === embedder.label) return;
      const chunks = await docs.chunks(agentId, docId);
      const vectors = await embedder.embed(chunks.map((c) => c.text));
      if (!(await docs.finish(agentId, docId, chunks, vectors, doc.text_chars ?? 0, embedder.label))) return;
      this.o.logger.info(
        { agent_id: agentId, document_id: docId, from: doc.embedding_model, to: embedder.label },
        'document re-embedded',
      );
      this.o.onReady?.(agentId, docId);
    }
  }

  private async fail(job: IngestJob, reason: string): Promise<void> {
    try {
      await this.o.store.documents.fail(job.agent_id, job.document_id, reason);
    } catch (err) {
      this.o.logger.error({ err, document_id: job.document_id }, 'could not mark document failed');
    }
  }
}
