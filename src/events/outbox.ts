import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { isoNow } from '../records/timestamps.js';
import { newId } from '../ids.js';
import type { StoredAgent } from '../records/agent.js';
import type { EventDeliveryObserver } from '../metrics/operator-metrics.js';
import { bullConnection, closeQueue } from '../store/bullmq.js';
import type { Store } from '../store/store.js';
import type { AsyncEventType, EventEnvelope } from './event-types.js';
import { outboundHeaders } from './outbound-headers.js';
import type { OutboxEntry } from './outbox-entry.js';
import { OutboxRelay } from './outbox-relay.js';
import { postJson } from './outbound-post.js';

export interface OutboxOptions {
  redisUrl: string;
  prefix: string;
  store: Store;
  logger: Logger;
  /** First retry delay; later ones double (1 s, 2 s, 4 s by default), with jitter. */
  retryBaseMs: number;
  /** Per-attempt HTTP timeout. */
  timeoutMs: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How often the relay reads the transactional outbox without being woken (other instances, a crashed one). */
  relayIntervalMs: number;
  /** Counts delivery outcomes (operator metrics). */
  metrics?: EventDeliveryObserver | undefined;
}

type DeliveryJob = OutboxEntry;

/** SPEC §6: 3 retries after the first try. */
const attempts = 4;

class DeliveryError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/**
 * Delivery of asynchronous events. Events that announce a record (session_start, llm_response,
 * audio_ready, session_end) are written by the record's own script into the transactional outbox
 * (see TurnRecorder) and moved here by the relay; `emit` queues an event that announces no record
 * (context_retrieved) directly. A worker delivers each job with retries and exponential backoff;
 * after the last failure an `event_delivery_failed` error record is written. Jobs survive
 * restarts: a new worker resumes them.
 */
export class EventOutbox {
  private readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly relay: OutboxRelay;

  constructor(private readonly options: OutboxOptions) {
    this.relay = new OutboxRelay({
      store: options.store,
      logger: options.logger,
      enqueue: (entries) => this.enqueue(entries),
      intervalMs: options.relayIntervalMs,
    });
    this.queue = new Queue<DeliveryJob>('events', {
      connection: bullConnection(options.redisUrl),
      prefix: `${options.prefix}:bull`,
      defaultJobOptions: {
        attempts,
        backoff: { type: 'exponential', delay: options.retryBaseMs, jitter: 0.25 },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', (err) => options.logger.warn({ err: err.message }, 'event queue error'));
  }

  /**
   * Queues an event for the agent's events_url (nothing when it has none). Never blocks the caller:
   * the write is tracked and awaited on close, so shutdown loses none.
   */
  emit(agent: StoredAgent, type: AsyncEventType, sessionId: string, data: Record<string, unknown>): string | null {
    if (agent.events_url === null) return null;
    const envelope: EventEnvelope = {
      id: newId('event'),
      type,
      session_id: sessionId,
      agent_id: agent.id,
      timestamp: isoNow(),
      data,
    };
    const job: DeliveryJob = { envelope, url: agent.events_url, key: agent.webhook_api_key };
    this.track(
      this.queue
        .add(type, job, { jobId: envelope.id })
        .catch((err: unknown) =>
          this.options.logger.error({ err, event_id: envelope.id, type }, 'could not queue event; it is lost'),
        ),
    );
    return envelope.id;
  }

  /**
   * Adds delivery jobs for outbox entries; the event id is the job id, so adding one twice (a relay
   * that died before removing it from the outbox) queues it once.
   */
  async enqueue(entries: OutboxEntry[]): Promise<void> {
    await this.queue.addBulk(
      entries.map((entry) => ({ name: entry.envelope.type, data: entry, opts: { jobId: entry.envelope.id } })),
    );
  }

  /** Starts relaying the transactional outbox: at once (what a killed process left), then on writes and a timer. */
  startRelay(): void {
    this.relay.start();
  }

  /** A record script just wrote an outbox entry: relay it now rather than at the next tick. */
  recorded(): void {
    this.relay.wake();
  }

  /** Moves everything in the transactional outbox into the queue now (tests, shutdown). */
  async relayAll(): Promise<number> {
    return this.relay.relayAll();
  }

  /** Keeps a fire-and-forget write in `pending` until it settles, so close() can wait for it. */
  private track(write: Promise<unknown>): void {
    const tracked = write.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  startWorker(): void {
    if (this.worker !== undefined) return;
    const worker = new Worker<DeliveryJob>('events', (job) => this.deliver(job), {
      connection: bullConnection(this.options.redisUrl),
      prefix: `${this.options.prefix}:bull`,
      concurrency: this.options.concurrency,
    });
    const metrics = this.options.metrics;
    worker.on('completed', (job) => metrics?.eventDelivery(job.data.envelope.type, 'delivered'));
    worker.on('failed', (job, err) => {
      if (job === undefined) return;
      const retrying = job.attemptsMade < (job.opts.attempts ?? 1);
      metrics?.eventDelivery(job.data.envelope.type, retrying ? 'retried' : 'failed');
      if (retrying) {
        this.options.logger.info(
          { event_id: job.data.envelope.id, attempt: job.attemptsMade, err: err.message },
          'event delivery failed; will retry',
        );
        return;
      }
      this.track(this.recordFailure(job, err));
    });
    worker.on('error', (err) => this.options.logger.warn({ err: err.message }, 'event worker error'));
    this.worker = worker;
  }

  /** Events not yet delivered: in the transactional outbox, or queued (waiting, delayed for retry, in flight). */
  async backlog(): Promise<number> {
    const [counts, unrelayed] = await Promise.all([
      this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized'),
      this.options.store.redis.lLen(this.options.store.keys.eventOutbox()),
    ]);
    return Object.values(counts).reduce((a, b) => a + b, unrelayed);
  }

  /** Waits for queued writes, lets in-flight deliveries finish, and disconnects. */
  async close(): Promise<void> {
    await this.relay.close();
    await Promise.allSettled([...this.pending]);
    // Error records of deliveries that failed for the last time while the worker wound down are
    // written before the queue closes.
    await closeQueue(this.queue, this.worker, { between: () => Promise.allSettled([...this.pending]) });
  }

  private async deliver(job: Job<DeliveryJob>): Promise<void> {
    const { envelope, url, key } = job.data;
    const body = JSON.stringify(envelope);
    let status: number;
    try {
      const headers = outboundHeaders(body, key, {
        'X-Parley-Event-Id': envelope.id,
        'X-Parley-Event-Attempt': String(job.attemptsMade + 1),
      });
      // The reply is not used; reading a little of it keeps the connection reusable.
      ({ status } = await postJson(url, body, headers, {
        timeoutMs: this.options.timeoutMs,
        maxResponseBytes: 64 * 1024,
      }));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new DeliveryError(`request failed: ${reason}`, null);
    }
    if (status < 200 || status > 299) throw new DeliveryError(`receiver answered HTTP ${status}`, status);
  }

  private async recordFailure(job: Job<DeliveryJob>, err: Error): Promise<void> {
    const { envelope, url } = job.data;
    try {
      await this.options.store.errors.record({
        type: 'event_delivery_failed',
        message: `event ${envelope.type} could not be delivered after ${job.attemptsMade} attempts: ${err.message}`,
        agent_id: envelope.agent_id,
        session_id: envelope.session_id,
        status_code: err instanceof DeliveryError ? err.status : null,
        details: { event_id: envelope.id, event_type: envelope.type, events_url: url, attempts: job.attemptsMade },
      });
    } catch (recordErr) {
      this.options.logger.error(
        { err: recordErr, event_id: envelope.id },
        'could not write event_delivery_failed record',
      );
    }
  }
}
