import { Queue, Worker, type Job, type JobsOptions, type JobType } from 'bullmq';
import type { Logger } from 'pino';
import { bullConnection, closeQueue } from '../store/bullmq.js';
import type { Store } from '../store/store.js';
import { OutboxRelay } from './outbox-relay.js';

export interface DurableQueueOptions<T> {
  /** The BullMQ queue's name (`events`, `analysis`). */
  name: string;
  /** What log lines call it: `<label> queue error`, `<label> worker error`. */
  label: string;
  redisUrl: string;
  /** Parley's key prefix; BullMQ's keys live under `<prefix>:bull`. */
  prefix: string;
  store: Store;
  logger: Logger;
  /** Tries per job, the first included. */
  attempts: number;
  /** First retry delay; the next ones double, with jitter. */
  retryBaseMs: number;
  /**
   * BullMQ's lock on a job in flight (lockDuration, renewed every half of it) and the interval of
   * the stalled-job check: a job whose process was killed runs again in another within twice this.
   * Default BullMQ's 30 s.
   */
  lockMs?: number | undefined;
  /** The transactional outbox the relay moves into the queue. */
  outbox: {
    /** Its Redis list. */
    key: string;
    /** What the relay's log lines call it. */
    name: string;
    /** How often it is read when nothing in this process woke the relay (other instances, a crashed one). */
    intervalMs: number;
    /** The job of an entry: its name and id (the entry's own id, so an entry relayed twice is queued once). */
    job: (entry: T) => { name: string; jobId: string };
  };
}

export interface DurableWorkerOptions<T> {
  /** Jobs run at once. */
  concurrency: number;
  /** A job succeeded. */
  completed?: (job: Job<T>) => void;
  /** A try failed; `retrying` false: it was the last one. */
  failed: (job: Job<T>, err: Error, retrying: boolean) => void;
}

/**
 * A durable BullMQ queue fed by a transactional outbox (events, post-call analysis): a record
 * script appends an entry to the outbox in the same atomic step as the record, and the relay
 * (outbox-relay.ts) moves it into the queue at start, when woken, and on a timer, so a process
 * killed in between loses nothing. Jobs are retried with exponential backoff and kept a day once
 * done (a week once failed). Work started on the side (`track`: error records of last failures)
 * is awaited on close.
 */
export class DurableQueue<T> {
  /** Untyped inside: BullMQ's generics cannot be resolved for a type parameter; the methods type it. */
  private readonly queue: Queue;
  private readonly relay: OutboxRelay<T>;
  private worker: Worker<T> | undefined;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly o: DurableQueueOptions<T>) {
    this.queue = new Queue(o.name, {
      connection: bullConnection(o.redisUrl),
      prefix: `${o.prefix}:bull`,
      defaultJobOptions: {
        attempts: o.attempts,
        backoff: { type: 'exponential', delay: o.retryBaseMs, jitter: 0.25 },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', (err) => o.logger.warn({ err: err.message }, `${o.label} queue error`));
    this.relay = new OutboxRelay<T>({
      store: o.store,
      logger: o.logger,
      key: o.outbox.key,
      name: o.outbox.name,
      intervalMs: o.outbox.intervalMs,
      enqueue: (entries) => this.enqueue(entries),
    });
  }

  /** Adds one job directly, not through the outbox (BullMQ's `add`). */
  async add(name: string, data: T, opts: JobsOptions): Promise<void> {
    await this.queue.add(name, data, opts);
  }

  /** Adds the jobs of outbox entries (a second add of a job id is a no-op). */
  async enqueue(entries: T[]): Promise<void> {
    await this.queue.addBulk(
      entries.map((entry) => {
        const { name, jobId } = this.o.outbox.job(entry);
        return { name, data: entry, opts: { jobId } };
      }),
    );
  }

  /** Starts relaying the outbox: at once (what a killed process left), then on wakes and a timer. */
  startRelay(): void {
    this.relay.start();
  }

  /** An entry was just written to the outbox: relay it now rather than at the next tick. */
  wake(): void {
    this.relay.wake();
  }

  /** Moves everything in the outbox into the queue now (tests, shutdown); returns how many entries. */
  relayAll(): Promise<number> {
    return this.relay.relayAll();
  }

  /** Starts the worker that runs `process` on each job (once; later calls do nothing). */
  startWorker(process: (job: Job<T>) => Promise<void>, options: DurableWorkerOptions<T>): void {
    if (this.worker !== undefined) return;
    const worker = new Worker<T>(this.o.name, process, {
      connection: bullConnection(this.o.redisUrl),
      prefix: `${this.o.prefix}:bull`,
      concurrency: options.concurrency,
      ...(this.o.lockMs === undefined ? {} : { lockDuration: this.o.lockMs, stalledInterval: this.o.lockMs }),
    });
    worker.on('stalled', (jobId) =>
      this.o.logger.info({ job_id: jobId }, `${this.o.label} job stalled (its process stopped): running it again`),
    );
    const { completed } = options;
    if (completed !== undefined) worker.on('completed', (job) => completed(job));
    worker.on('failed', (job, err) => {
      if (job === undefined) return;
      options.failed(job, err, job.attemptsMade < (job.opts.attempts ?? 1));
    });
    worker.on('error', (err) => this.o.logger.warn({ err: err.message }, `${this.o.label} worker error`));
    this.worker = worker;
  }

  /** Jobs in the given states (BullMQ's `getJobCounts`). */
  counts(...states: JobType[]): Promise<Record<string, number>> {
    return this.queue.getJobCounts(...states);
  }

  /** Keeps side work (an error record) in `pending` until it settles, so close() waits for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /**
   * Stops the relay (after one last pass), waits for side work, lets jobs in flight finish, and
   * disconnects; side work started while the worker wound down is awaited before the queue closes.
   */
  async close(): Promise<void> {
    await this.relay.close();
    await Promise.allSettled([...this.pending]);
    await closeQueue(this.queue, this.worker, { between: () => Promise.allSettled([...this.pending]) });
  }
}
