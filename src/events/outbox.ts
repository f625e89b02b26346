import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { isoNow } from '../schemas/timestamps.js';
import { newId } from '../ids/new-id.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { EventDeliveryObserver } from '../metrics/operator-metrics.js';
import { DurableQueue } from '../queues/durable-queue.js';
import type { Store } from '../store/store.js';
import type { AsyncEventType, EventEnvelope } from '../schemas/event-types.js';
import { outboundHeaders } from '../outbound/outbound-headers.js';
import type { OutboxEntry } from '../schemas/outbox-entry.js';
import { postJson } from '../outbound/post-json.js';

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
  /** PARLEY_EVENT_LOCK_MS: a delivery in flight in a killed process is run again by another within twice this. */
  lockMs?: number | undefined;
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
 * (context_retrieved, dtmf) directly. A worker delivers each job with retries and exponential
 * backoff; after the last failure an `event_delivery_failed` error record is written. Jobs survive
 * restarts: a new worker resumes them.
 */
export class EventOutbox {
  private readonly queue: DurableQueue<DeliveryJob>;

  constructor(private readonly options: OutboxOptions) {
    this.queue = new DurableQueue<DeliveryJob>({
      name: 'events',
      label: 'event',
      redisUrl: options.redisUrl,
      prefix: options.prefix,
      store: options.store,
      logger: options.logger,
      attempts,
      retryBaseMs: options.retryBaseMs,
      lockMs: options.lockMs,
      outbox: {
        key: options.store.keys.eventOutbox(),
        name: 'event outbox',
        intervalMs: options.relayIntervalMs,
        job: (entry) => ({ name: entry.envelope.type, jobId: entry.envelope.id }),
      },
    });
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
    this.queue.track(
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
    await this.queue.enqueue(entries);
  }

  /** Starts relaying the transactional outbox: at once (what a killed process left), then on writes and a timer. */
  startRelay(): void {
    this.queue.startRelay();
  }

  /** A record script just wrote an outbox entry: relay it now rather than at the next tick. */
  recorded(): void {
    this.queue.wake();
  }

  /** Moves everything in the transactional outbox into the queue now (tests, shutdown). */
  async relayAll(): Promise<number> {
    return this.queue.relayAll();
  }

  startWorker(): void {
    const metrics = this.options.metrics;
    this.queue.startWorker((job) => this.deliver(job), {
      concurrency: this.options.concurrency,
      completed: (job) => metrics?.eventDelivery(job.data.envelope.type, 'delivered'),
      failed: (job, err, retrying) => {
        metrics?.eventDelivery(job.data.envelope.type, retrying ? 'retried' : 'failed');
        if (retrying) {
          this.options.logger.info(
            { event_id: job.data.envelope.id, attempt: job.attemptsMade, err: err.message },
            'event delivery failed; will retry',
          );
          return;
        }
        this.queue.track(this.recordFailure(job, err));
      },
    });
  }

  /** Events not yet delivered: in the transactional outbox, or queued (waiting, delayed for retry, in flight). */
  async backlog(): Promise<number> {
    const [counts, unrelayed] = await Promise.all([
      this.queue.counts('waiting', 'delayed', 'active', 'prioritized'),
      this.options.store.outboxes.length(this.options.store.keys.eventOutbox()),
    ]);
    return Object.values(counts).reduce((a, b) => a + b, unrelayed);
  }

  /**
   * Waits for queued writes, lets in-flight deliveries finish, and disconnects. Error records of
   * deliveries that failed for the last time while the worker wound down are written before the
   * queue closes.
   */
  async close(): Promise<void> {
    await this.queue.close();
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
