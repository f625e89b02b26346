import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../errors/app-errors.js';
import { outboxEntry } from '../schemas/outbox-entry.js';
import type { EventOutbox } from '../events/outbox.js';
import type { PipelineSettingsOf } from '../agents/pipeline-settings.js';
import type { LlmProvider } from '../providers/llm.js';
import type { StoredPreset } from '../schemas/preset.js';
import { isoNow } from '../schemas/timestamps.js';
import { DurableQueue } from '../queues/durable-queue.js';
import type { Store } from '../store/store.js';
import { analysisJobId, type AnalysisRequest } from '../schemas/analysis-request.js';
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
  private readonly queue: DurableQueue<AnalysisRequest>;

  constructor(private readonly o: PostCallAnalysisOptions) {
    this.queue = new DurableQueue<AnalysisRequest>({
      name: 'analysis',
      label: 'analysis',
      redisUrl: o.redisUrl,
      prefix: o.prefix,
      store: o.store,
      logger: o.logger,
      attempts,
      retryBaseMs: o.retryBaseMs,
      outbox: {
        key: o.store.keys.analysisOutbox(),
        name: 'analysis outbox',
        intervalMs: o.relayIntervalMs,
        job: (request) => ({ name: 'analyse', jobId: analysisJobId(request.session_id) }),
      },
    });
  }

  /** Relays requests (what a killed process left first) and, unless concurrency is 0, runs analyses. */
  start(): void {
    this.queue.startRelay();
    if (this.o.concurrency === 0) return;
    this.queue.startWorker((job) => this.run(job), {
      concurrency: this.o.concurrency,
      failed: (job, err, retrying) => {
        if (retrying) {
          this.o.logger.warn(
            { session_id: job.data.session_id, attempt: job.attemptsMade, err: err.message },
            'post-call analysis failed; will retry',
          );
          return;
        }
        this.queue.track(this.recordFailure(job, err));
      },
    });
  }

  /** A session end just stored a request: relay it now rather than at the next tick. */
  requested(): void {
    this.queue.wake();
  }

  async close(): Promise<void> {
    await this.queue.close();
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
