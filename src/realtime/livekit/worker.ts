import {
  WorkerStatus,
  type AvailabilityRequest,
  type JobAssignment,
  type JobStatus,
  type WorkerMessage,
} from '@livekit/protocol';
import { WebSocket, type RawData } from 'ws';
import { mintWorkerToken, workerUrl } from './tokens.js';
import type { WorkerOptions, WorkerState } from './worker-types.js';
import {
  availabilityMessage,
  decodeServerMessage,
  jobStatusMessage,
  registerMessage,
  statusMessage,
} from './worker-messages.js';

/**
 * Parley as a LiveKit agent worker, speaking the agent-worker protocol (protobuf `WorkerMessage` /
 * `ServerMessage` over a WebSocket to `<LIVEKIT_URL>/agent`) itself, so jobs run inside this
 * process. Flow, as in LiveKit's agents `worker.ts`: register (agent name, room jobs, permissions)
 * → worker id; answer each availability request; run the assignment that follows an acceptance;
 * report load and status every 2.5 s (WS_FULL at capacity or while draining); end jobs LiveKit
 * terminates; reconnect with exponential backoff whenever the connection drops, for as long as the
 * process runs. Jobs already running keep their own room connections across a reconnect.
 */
export class LivekitWorker {
  private ws: WebSocket | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private lastStatus: WorkerStatus | undefined;
  private readonly s: WorkerState = {
    connection: 'connecting',
    workerId: null,
    reason: null,
    reconnectAttempts: 0,
    nextRetryAt: null,
    registeredAt: null,
    draining: false,
  };

  constructor(private readonly o: WorkerOptions) {}

  get state(): Readonly<WorkerState> {
    return { ...this.s };
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops taking jobs: WS_FULL now and in every later report; refuses every offer. */
  drain(): void {
    if (this.s.draining) return;
    this.s.draining = true;
    this.sendStatus();
  }

  get draining(): boolean {
    return this.s.draining;
  }

  /** Tells LiveKit how a job went (running, success, failed). */
  jobStatus(jobId: string, status: JobStatus, error = ''): void {
    this.send(jobStatusMessage(jobId, status, error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.s.connection = 'stopped';
    this.wakeUp?.();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    const ws = this.ws;
    ws?.close(1000, 'worker stopping');
    // A server that never answers the close frame does not hold shutdown up.
    const force = setTimeout(() => ws?.terminate(), 1_000);
    await this.loop;
    clearTimeout(force);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.session();
        if (this.stopped) break;
        this.s.reason = 'connection closed by the server';
      } catch (err) {
        if (this.stopped) break;
        this.s.reason = err instanceof Error ? err.message : String(err);
      }
      this.s.reconnectAttempts++;
      const delay = this.backoff(this.s.reconnectAttempts);
      this.s.connection = 'reconnecting';
      this.s.workerId = null;
      this.s.registeredAt = null;
      this.s.nextRetryAt = Date.now() + delay;
      this.o.logger.warn(
        { reason: this.s.reason, attempt: this.s.reconnectAttempts, retry_in_ms: delay },
        'LiveKit worker connection lost; reconnecting',
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.s.nextRetryAt = null;
    }
  }

  private backoff(attempt: number): number {
    const base = this.o.backoffMs ?? 500;
    const max = this.o.maxBackoffMs ?? 30_000;
    const raw = Math.min(max, base * 2 ** Math.min(attempt - 1, 20));
    return Math.round(raw * (0.75 + Math.random() * 0.5));
  }

  /** One connection: open, register, serve until it closes. Rejects with why it ended. */
  private async session(): Promise<void> {
    const token = await mintWorkerToken(this.o.credentials);
    if (this.stopped) return;
    const ws = new WebSocket(workerUrl(this.o.credentials.url), {
      headers: { Authorization: `Bearer ${token}` },
      handshakeTimeout: this.o.registerTimeoutMs ?? 10_000,
    });
    this.ws = ws;
    ws.on('error', (err) => this.o.logger.debug({ err }, 'LiveKit worker socket error'));
    let statusTimer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
        ws.once('unexpected-response', (_req, res) =>
          reject(new Error(`LiveKit refused the worker connection: HTTP ${res.statusCode}`)),
        );
      });
      const closed = new Promise<void>((resolve, reject) =>
        ws.once('close', (code, reason) =>
          this.stopped
            ? resolve()
            : reject(new Error(`connection closed (${code}${reason.length ? ` ${String(reason)}` : ''})`)),
        ),
      );
      const registered = this.register(ws);
      // Both are awaited below; marked handled now so that whichever loses the race cannot surface
      // later as an unhandled rejection.
      closed.catch(() => undefined);
      registered.catch(() => undefined);
      ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
      await Promise.race([registered, closed]);
      if (this.stopped) return;
      this.s.connection = 'registered';
      this.s.reason = null;
      this.s.reconnectAttempts = 0;
      this.s.registeredAt = Date.now();
      this.lastStatus = undefined;
      this.sendStatus();
      statusTimer = setInterval(() => this.sendStatus(), this.o.statusIntervalMs ?? 2_500);
      await closed;
    } finally {
      clearInterval(statusTimer);
      ws.removeAllListeners('message');
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
    }
  }

  /** Sends the registration; resolves when the server answers with a worker id. */
  private register(ws: WebSocket): Promise<void> {
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('LiveKit did not answer the registration')),
        this.o.registerTimeoutMs ?? 10_000,
      );
      ws.once('close', () => clearTimeout(timer));
      const onMessage = (data: RawData, isBinary: boolean) => {
        const msg = decodeServerMessage(data, isBinary);
        if (msg?.message.case !== 'register') return;
        clearTimeout(timer);
        ws.off('message', onMessage);
        this.s.workerId = msg.message.value.workerId;
        this.o.logger.info(
          { worker_id: this.s.workerId, agent_name: this.o.agentName },
          'registered as a LiveKit agent worker',
        );
        resolve();
      };
      ws.on('message', onMessage);
    });
    ws.send(registerMessage(this.o.agentName, this.o.version).toBinary());
    return answered;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const msg = decodeServerMessage(data, isBinary);
    if (msg === undefined) {
      this.o.logger.warn('LiveKit sent a worker message that is not a protobuf ServerMessage');
      return;
    }
    switch (msg.message.case) {
      case 'availability':
        void this.onAvailability(msg.message.value);
        break;
      case 'assignment':
        this.onAssignment(msg.message.value);
        break;
      case 'termination':
        this.o.jobs.terminate(msg.message.value.jobId);
        break;
      default:
        break; // register (answered already), pong: nothing to do
    }
  }

  private async onAvailability(request: AvailabilityRequest): Promise<void> {
    const job = request.job;
    if (job === undefined) return;
    let answer: { available: boolean; reason: string | null };
    if (this.s.draining) answer = { available: false, reason: 'draining' };
    else {
      answer = await this.o.jobs.offer(job, request.resuming).catch((err: unknown) => ({
        available: false,
        reason: `could not check the job: ${err instanceof Error ? err.message : String(err)}`,
      }));
    }
    if (!answer.available)
      this.o.logger.info({ job_id: job.id, room: job.room?.name, reason: answer.reason }, 'LiveKit job refused');
    this.send(availabilityMessage(job.id, answer.available, this.o.agentName));
    if (!answer.available) return;
    this.pending.set(
      job.id,
      setTimeout(() => {
        this.pending.delete(job.id);
        this.o.logger.warn({ job_id: job.id }, 'LiveKit job accepted but never assigned');
        this.o.jobs.abandon(job.id);
      }, this.o.assignmentTimeoutMs ?? 7_500),
    );
    this.sendStatus();
  }

  private onAssignment(assignment: JobAssignment): void {
    const job = assignment.job;
    if (job === undefined) return;
    const timer = this.pending.get(job.id);
    if (timer === undefined) {
      this.o.logger.warn({ job_id: job.id }, 'LiveKit assigned a job this worker did not accept');
      return;
    }
    clearTimeout(timer);
    this.pending.delete(job.id);
    this.o.jobs.assign(job, assignment.url || this.o.credentials.url, assignment.token);
  }

  /** Load and availability; sent on every tick, and at once when the status flips. */
  private sendStatus(): void {
    const load = this.s.draining ? 1 : Math.min(1, Math.max(0, this.o.jobs.load()));
    const status = this.s.draining || load >= 1 ? WorkerStatus.WS_FULL : WorkerStatus.WS_AVAILABLE;
    if (status !== this.lastStatus && this.lastStatus !== undefined)
      this.o.logger.info({ load, status: WorkerStatus[status] }, 'LiveKit worker availability changed');
    this.lastStatus = status;
    this.send(statusMessage(status, load, this.o.jobs.jobCount));
  }

  /** Sends on the live connection; while there is none the message is dropped (LiveKit re-offers after a reconnect). */
  private send(msg: WorkerMessage): void {
    const ws = this.ws;
    if (ws !== undefined && ws.readyState === ws.OPEN) ws.send(msg.toBinary());
  }
}
