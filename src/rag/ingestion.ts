import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import { bullConnection, closeQueue } from '../store/bullmq.js';
import type { Store } from '../store/store.js';
import type { Embedder } from './embedding/embedder.js';
import type { ChunkOptions } from './chunker.js';
import { DocumentIndexer, needsVectors } from './document-indexer.js';
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
 * waits for the next. Unreadable documents fail at once; other errors retry twice, then fail. A
 * failed document keeps its upload and can be retried (`retry`).
 *
 * Without a usable embedding model a document becomes ready on the lexical index alone
 * (`DocumentIndexer`). When an agent's embedding model changes (its preset's `embeddings`, its
 * preset, or the default), on every start, and after a document of the agent got vectors,
 * `reembedStale` queues a `reembed` job per ready document without vectors of the agent's model:
 * a lexical one is chunked and embedded from its stored upload, one of another model has its
 * stored chunks embedded again, swapped in atomically. Until then the document stays searchable
 * by BM25 only (vectors of two models are never compared).
 */
export class Ingestion {
  private readonly queue: Queue<IngestJob>;
  private worker: Worker<IngestJob> | undefined;
  /** Jobs this instance is running now. */
  private running = 0;
  /** Set while a re-queue of orphaned documents waits to run (after a failed enqueue). */
  private resumeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly indexer: DocumentIndexer;

  constructor(private readonly o: IngestionOptions) {
    this.indexer = new DocumentIndexer(o);
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
   * Puts a failed document back to `processing` and queues it again (the failed job is removed
   * first: the job id is the document id). 404 unknown, 409 not failed or its upload is gone.
   */
  async retry(agentId: string, documentId: string): Promise<void> {
    await this.o.store.documents.retry(agentId, documentId);
    const old = await this.queue.getJob(documentId);
    if (old !== undefined && old !== null) await old.remove();
    await this.enqueue(agentId, documentId);
  }

  /**
   * Queues vectors for the agent's ready documents that have none of its current model (lexical
   * ones, or made with another model); returns how many. Nothing while that model is not usable
   * here. Idempotent: a document already queued is not queued twice.
   */
  async reembedStale(agentId: string): Promise<number> {
    const embedder = await this.o.embedderFor(agentId);
    const stale = (await this.o.store.documents.all(agentId)).filter(
      (doc) => doc.status === 'ready' && needsVectors(doc, embedder.label),
    );
    if (stale.length === 0) return 0;
    const missing = await embedder.unavailable();
    if (missing !== null) {
      this.o.logger.warn(
        { agent_id: agentId, documents: stale.length, reason: missing },
        'documents stay searchable by BM25 only',
      );
      return 0;
    }
    let queued = 0;
    for (const doc of stale) {
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
          'adding vectors failed; the document stays searchable by BM25 only until it succeeds',
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
    await this.indexer.close();
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
    const doc = await docs.get(agentId, docId).catch(nullIfNotFound);
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
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? attempts);
    const outcome = await this.indexer.index(agentId, docId, text, lastAttempt);
    if (!outcome.ready) return;
    this.o.onReady?.(agentId, docId);
    // A usable model: fill in what has no vectors of it (lexical documents, or the model changed meanwhile).
    if (!outcome.hybrid) return;
    // Caught: the document is ready, and a throw here would fail it once the attempts ran out.
    await this.reembedStale(agentId).catch((err: unknown) =>
      this.o.logger.warn({ err, agent_id: agentId }, 'could not queue vectors for the agent’s other documents'),
    );
  }

  /** Gives a ready document vectors of the agent's current model (again when it changes meanwhile). */
  private async reembed({ agent_id: agentId, document_id: docId }: IngestJob): Promise<void> {
    for (let round = 0; round < reembedRounds; round++) {
      if (!(await this.indexer.addVectors(agentId, docId))) return;
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
