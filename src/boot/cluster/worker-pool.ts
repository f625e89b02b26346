import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { ProcessSnapshot, WorkersSummary } from '../../metrics/cluster-metrics.js';
import { parleyMessage, type ToPrimary, type ToWorker } from './messages.js';
import { RestartPolicy } from './restart-policy.js';

export interface WorkerPoolOptions {
  /** PARLEY_WORKERS. */
  size: number;
  /** Sent to every worker in its boot message. */
  boot: { adminApiKey: string; redisUrl: string };
  logger: Logger;
  policy?: RestartPolicy;
  /** Called when workers keep crashing and restarts stop; main.ts shuts Parley down then. */
  onGiveUp: (err: Error) => void;
}

/** How long the primary waits for each worker's metrics snapshot. */
export const snapshotWaitMs = 2_000;

interface Slot {
  readonly slot: number;
  worker: Worker | undefined;
  ready: boolean;
  restartTimer: NodeJS.Timeout | undefined;
}

interface Collection {
  readonly snapshots: ProcessSnapshot[];
  readonly pending: Set<number>;
  finish(): void;
}

/**
 * The primary's worker processes (node:cluster): forks PARLEY_WORKERS of them on the shared port,
 * hands each its boot message, restarts one that dies (RestartPolicy) in the same slot, drains
 * them all on stop, and collects their metrics snapshots for /health/metrics.
 */
export class WorkerPool {
  private readonly slots: Slot[];
  private readonly policy: RestartPolicy;
  private readonly collections = new Map<number, Collection>();
  private nextCollection = 1;
  private restarts = 0;
  private booted = false;
  private stopping = false;
  private startWaiter: { resolve: (port: number) => void; reject: (err: Error) => void } | undefined;
  private exitWaiters: (() => void)[] = [];

  constructor(private readonly options: WorkerPoolOptions) {
    this.slots = Array.from({ length: options.size }, (_, i) => ({
      slot: i + 1,
      worker: undefined,
      ready: false,
      restartTimer: undefined,
    }));
    this.policy = options.policy ?? new RestartPolicy();
  }

  /** Forks every worker; resolves with the port once all listen, rejects if one exits before. */
  start(): Promise<number> {
    // Structured clone on the IPC channel: metric values keep NaN (a failed Redis probe) and ±Infinity.
    cluster.setupPrimary({ serialization: 'advanced' });
    cluster.on('message', (worker, message) => this.onMessage(worker, message));
    cluster.on('exit', (worker, code, signal) => this.onExit(worker, code, signal));
    const started = new Promise<number>((resolve, reject) => (this.startWaiter = { resolve, reject }));
    for (const slot of this.slots) this.fork(slot);
    return started;
  }

  get summary(): WorkersSummary {
    return {
      configured: this.options.size,
      running: this.slots.filter((s) => s.ready).length,
      restarts: this.restarts,
    };
  }

  /** SIGTERM to every worker (each drains its sessions and exits), then waits until all have exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      slot.worker?.process.kill('SIGTERM');
    }
    while (this.slots.some((s) => s.worker !== undefined)) {
      await new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    }
  }

  /** Last resort on a forced exit: SIGKILL whatever worker is left. */
  killNow(): void {
    this.stopping = true;
    for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork();
    slot.worker = worker;
    slot.ready = false;
    worker.on('error', (err) => this.options.logger.warn({ err, worker: slot.slot }, 'worker channel error'));
    this.options.logger.info({ worker: slot.slot, pid: worker.process.pid }, 'worker process started');
  }

  private slotOf(worker: Worker): Slot | undefined {
    return this.slots.find((s) => s.worker === worker);
  }

  private onMessage(worker: Worker, message: unknown): void {
    const slot = this.slotOf(worker);
    if (slot === undefined) return;
    if (parleyMessage<ToPrimary, 'boot-request'>(message, 'boot-request') !== undefined) {
      const reportsStartup = slot.slot === 1 && !this.booted;
      this.send(worker, { parley: 'boot', slot: slot.slot, reportsStartup, ...this.options.boot });
      return;
    }
    const ready = parleyMessage<ToPrimary, 'ready'>(message, 'ready');
    if (ready !== undefined) return this.onReady(slot, ready.port);
    const request = parleyMessage<ToPrimary, 'metrics-request'>(message, 'metrics-request');
    if (request !== undefined) {
      this.collect((snapshots) =>
        this.send(worker, { parley: 'metrics-reply', id: request.id, snapshots, workers: this.summary }),
      );
      return;
    }
    const snapshot = parleyMessage<ToPrimary, 'metrics-snapshot'>(message, 'metrics-snapshot');
    if (snapshot !== undefined) {
      const collection = this.collections.get(snapshot.id);
      if (collection === undefined || !collection.pending.delete(worker.id)) return;
      collection.snapshots.push(snapshot.snapshot);
      if (collection.pending.size === 0) collection.finish();
    }
  }

  private onReady(slot: Slot, port: number): void {
    slot.ready = true;
    const pid = slot.worker?.process.pid;
    if (this.booted) {
      this.options.logger.info({ worker: slot.slot, pid, port }, 'worker process restarted');
      return;
    }
    this.options.logger.info({ worker: slot.slot, pid, port }, 'worker process ready');
    if (this.slots.every((s) => s.ready)) {
      this.booted = true;
      this.startWaiter?.resolve(port);
    }
  }

  /** Asks every ready worker for its snapshot; `done` gets those that came within snapshotWaitMs. */
  private collect(done: (snapshots: ProcessSnapshot[]) => void): void {
    const id = this.nextCollection++;
    const targets = this.slots.flatMap((s) => (s.ready && s.worker !== undefined ? [s.worker] : []));
    const snapshots: ProcessSnapshot[] = [];
    const timer = setTimeout(() => collection.finish(), snapshotWaitMs);
    const collection: Collection = {
      snapshots,
      pending: new Set(targets.map((w) => w.id)),
      finish: () => {
        if (!this.collections.delete(id)) return;
        clearTimeout(timer);
        done(snapshots.sort((a, b) => (a.worker ?? 0) - (b.worker ?? 0)));
      },
    };
    this.collections.set(id, collection);
    if (targets.length === 0) return collection.finish();
    for (const worker of targets) this.send(worker, { parley: 'metrics-collect', id });
  }

  private send(worker: Worker, message: ToWorker): void {
    // A worker that just exited cannot take it; its exit is handled in onExit.
    if (worker.isConnected()) worker.send(message);
  }

  private onExit(worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.slotOf(worker);
    if (slot === undefined) return;
    slot.worker = undefined;
    slot.ready = false;
    for (const collection of [...this.collections.values()]) {
      if (collection.pending.delete(worker.id) && collection.pending.size === 0) collection.finish();
    }
    const { logger } = this.options;
    const pid = worker.process.pid;
    if (this.stopping) {
      logger.info({ worker: slot.slot, pid, code, signal }, 'worker process exited');
      for (const wake of this.exitWaiters.splice(0)) wake();
      return;
    }
    if (!this.booted) {
      this.startWaiter?.reject(
        new Error(`worker ${slot.slot} (pid ${pid}) exited while starting (code ${code}, signal ${signal})`),
      );
      return;
    }
    const delayMs = this.policy.crashed();
    if (delayMs === undefined) {
      this.options.onGiveUp(
        new Error(`worker processes keep exiting (${this.policy.recent} times within a minute); not restarting`),
      );
      return;
    }
    // Its live sessions are gone with it: their leases expire and a reaper ends them `owner_lost`.
    logger.error(
      { worker: slot.slot, pid, code, signal, restart_in_ms: delayMs },
      'worker process exited unexpectedly; restarting it',
    );
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (this.stopping) return;
      this.restarts += 1;
      this.fork(slot);
    }, delayMs);
  }
}
