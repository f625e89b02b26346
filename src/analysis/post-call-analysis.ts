import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { NotFoundError } from '../errors.js';
import { outboxEntry } from '../events/outbox-entry.js';
import type { EventOutbox } from '../events/outbox.js';
import { OutboxRelay } from '../events/outbox-relay.js';
import type { PipelineSettingsOf } from '../agents/pipeline-settings.js';
import type { LlmProvider } from '../providers/llm.js';
import type { StoredPreset } from '../records/preset.js';
import { isoNow } from '../records/timestamps.js';
import { bullConnection, closeQueue } from '../store/bullmq.js';
import type { Store } from '../store/store.js';
import { analysisJobId, type AnalysisRequest } from './analysis-request.js';
import { writeAnalysis } from './write-analysis.js';

export interface PostCallAnalysisOptions {
  redisUrl: string;
  prefix: string;
  store: Store;
  /** The agent's pipeline settings: analysis uses its preset's LLM (or the built-in preset's). */
  settings: Pick<PipelineSettingsOf, 'of'>;
  /** Announces stored analyses (`analysis_ready`) through the transactional outbox. */
  outbox: EventOutbox;
  logger: Logger;
  /**
   * The LLM provider of a preset's `llm` settings (LlmProviders.llm): the agent's own, so a
   * `local-llama` preset analyses in-process. A ProviderError (unknown provider or model) fails the job.
   */
  llmFor: (settings: StoredPreset['llm']) => LlmProvider;
  /** Analyses this process runs at once; 0 runs none (requests wait for another instance). */
  concurrency: number;
  /** First retry delay; the next doubles. */
  retryBaseMs: number;
  /** Per-call LLM timeout. */
  timeoutMs: number;
  /** How often the analysis outbox is read when no local session end woke the relay. */
  relayIntervalMs: number;
}

/** One try and two retries. */
const attempts = 3;

/**
 * Post-call analysis off the request path. A session's end writes an analysis request into the
 * analysis outbox in the same atomic step (TurnRecorder.ended, for agents with `analysis.enabled`);
 * a relay moves it into the durable BullMQ `analysis` queue (job id per session, so once), at
 * start, when woken by a local end, and on a timer, so a process killed in between loses nothing.
 * A worker reads the conversation, asks the agent's LLM for the summary and structured fields,
 * and stores them on the conversation with the `analysis_ready` event, atomically and once.
 * Failures are retried with exponential backoff; after the last one an `analysis_failed` error
 * record is written.
 */
export class PostCallAnalysis {
  private readonly queue: Queue<AnalysisRequest>;
  private readonly relay: OutboxRelay<AnalysisRequest>;
  private worker: Worker<AnalysisRequest> | undefined;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly o: PostCallAnalysisOptions) {
    this.queue = new Queue<AnalysisRequest>('analysis', {
      connection: bullConnection(o.redisUrl),
      prefix: `${o.prefix}:bull`,
      defaultJobOptions: {
        attempts,
        backoff: { type: 'exponential', delay: o.retryBaseMs, jitter: 0.25 },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', (err) => o.logger.warn({ err: err.message }, 'analysis queue error'));
    this.relay = new OutboxRelay<AnalysisRequest>({
      store: o.store,
      logger: o.logger,
      key: o.store.keys.analysisOutbox(),
      name: 'analysis outbox',
      intervalMs: o.relayIntervalMs,
      enqueue: async (requests) => {
        await this.queue.addBulk(
          requests.map((r) => ({ name: 'analyse', data: r, opts: { jobId: analysisJobId(r.session_id) } })),
        );
      },
    });
  }

  /** Relays requests (what a killed process left first) and, unless concurrency is 0, runs analyses. */
  start(): void {
    this.relay.start();
    if (this.worker !== undefined || this.o.concurrency === 0) return;
    const worker = new Worker<AnalysisRequest>('analysis', (job) => this.run(job), {
      connection: bullConnection(this.o.redisUrl),
      prefix: `${this.o.prefix}:bull`,
      concurrency: this.o.concurrency,
    });
    worker.on('failed', (job, err) => {
      if (job === undefined) return;
      if (job.attemptsMade < attempts) {
        this.o.logger.warn(
          { session_id: job.data.session_id, attempt: job.attemptsMade, err: err.message },
          'post-call analysis failed; will retry',
        );
        return;
      }
      this.track(this.recordFailure(job, err));
    });
    worker.on('error', (err) => this.o.logger.warn({ err: err.message }, 'analysis worker error'));
    this.worker = worker;
  }

  /** A session end just stored a request: relay it now rather than at the next tick. */
  requested(): void {
    this.relay.wake();
  }

  async close(): Promise<void> {
    await this.relay.close();
    await closeQueue(this.queue, this.worker, { between: () => Promise.allSettled([...this.pending]) });
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async run(job: Job<AnalysisRequest>): Promise<void> {
    const { store, logger } = this.o;
    const { session_id: sessionId, agent_id: agentId } = job.data;
    const session = await store.sessions.get(sessionId).catch(nullIfNotFound);
    const agent = await store.agents.getStored(agentId).catch(nullIfNotFound);
    if (session === null || agent === null || agent.analysis?.enabled !== true) {
      logger.info(
        { session_id: sessionId, agent_id: agentId },
        'post-call analysis skipped: session or agent gone, or analysis off',
      );
      return;
    }
    const conversation = await store.conversations.getWithMessages(session.conversation_id);
    if (conversation.analysis !== null) return; // done by an earlier run of this job
    if (!conversation.messages.some((m) => m.role === 'user')) {
      logger.info({ session_id: sessionId }, 'post-call analysis skipped: the user said nothing');
      return;
    }
    const { llm } = await this.o.settings.of(agent);
    const written = await writeAnalysis({
      messages: conversation.messages,
      settings: agent.analysis,
      llm,
      provider: this.o.llmFor(llm),
      timeoutMs: this.o.timeoutMs,
    });
    const analysis = { ...written, created_at: isoNow() };
    const event = outboxEntry(agent, 'analysis_ready', sessionId, {
      conversation_id: conversation.id,
      summary: analysis.summary,
      data: analysis.data,
      model: analysis.model,
    });
    const stored = await store.conversations.recordAnalysis(conversation.id, analysis, event);
    if (stored && event !== null) this.o.outbox.recorded();
    logger.info({ session_id: sessionId, conversation_id: conversation.id }, 'post-call analysis stored');
  }

  private async recordFailure(job: Job<AnalysisRequest>, err: Error): Promise<void> {
    const { session_id: sessionId, agent_id: agentId } = job.data;
    try {
      await this.o.store.errors.record({
        type: 'analysis_failed',
        message: `post-call analysis failed after ${job.attemptsMade} attempts: ${err.message}`,
        agent_id: agentId,
        session_id: sessionId,
        details: { attempts: job.attemptsMade },
      });
    } catch (recordErr) {
      this.o.logger.error({ err: recordErr, session_id: sessionId }, 'could not write analysis_failed record');
    }
  }
}

function nullIfNotFound(err: unknown): null {
  if (err instanceof NotFoundError) return null;
  throw err;
}
