import cluster from 'node:cluster';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import type { EventOutbox } from '../../events/outbox.js';
import type { SessionSupervisor } from '../../sessions/supervisor.js';
import type { Store } from '../../store/store.js';
import type { SessionRecorder } from '../../session-writes/turn-recorder.js';
import { version } from '../../project/version.js';
import type { RoomConnector } from './agent-room.js';
import { LivekitApi } from './api.js';
import { Heartbeat, type InstanceStatus } from './heartbeat.js';
import { LivekitJobs } from './jobs.js';
import { connectRtcRoom } from './rtc-room.js';
import type { WorkerOptions } from './worker-types.js';
import { LivekitWorker } from './worker.js';

/** Test and bench seams: how rooms are joined, and the worker's timings. */
export interface LivekitPlaneOverrides {
  connect?: RoomConnector;
  worker?: Pick<WorkerOptions, 'backoffMs' | 'maxBackoffMs' | 'statusIntervalMs' | 'assignmentTimeoutMs'>;
  heartbeatMs?: number;
}

export interface LivekitPlaneDeps {
  config: Config;
  store: Store;
  outbox: EventOutbox;
  /** The process's one recorder: sessions of jobs are created and ended through it. */
  recorder: SessionRecorder;
  supervisor: SessionSupervisor;
  logger: Logger;
  /** This process's id: the supervisor's lease holder name, so leases and heartbeats name the same node. */
  instanceId: string;
  overrides?: LivekitPlaneOverrides | undefined;
}

/**
 * Everything LiveKit in one process: the agent worker and its in-process jobs (when LIVEKIT_URL,
 * key and secret are set), the server API client for the admin endpoints, and the heartbeat every
 * instance writes for worker-status, LiveKit or not.
 */
export class LivekitPlane {
  readonly instanceId: string;
  readonly api: LivekitApi | undefined;
  readonly worker: LivekitWorker | undefined;
  readonly jobs: LivekitJobs | undefined;
  private readonly heartbeat: Heartbeat;
  private readonly startedAt = new Date().toISOString();
  private httpUrl: string | null = null;

  constructor(private readonly deps: LivekitPlaneDeps) {
    const { config, store, outbox, recorder, supervisor, logger, overrides } = deps;
    this.instanceId = deps.instanceId;
    const { url, apiKey, apiSecret, agentName } = config.livekit;
    const log = logger.child({ component: 'livekit' });
    if (url !== undefined && apiKey !== undefined && apiSecret !== undefined) {
      const credentials = { url, apiKey, apiSecret };
      const api = new LivekitApi(credentials, agentName);
      this.api = api;
      const jobs = new LivekitJobs(
        {
          store,
          outbox,
          supervisor,
          recorder,
          connect: overrides?.connect ?? connectRtcRoom,
          logger: log,
          status: (jobId, status, error) => this.worker?.jobStatus(jobId, status, error),
          instanceId: this.instanceId,
          workerId: () => this.worker?.state.workerId ?? null,
          inputSampleRate: 16_000,
          outputSampleRate: 24_000,
          sipTransfer: (room, identity, to) => api.transferSip(room, identity, to),
        },
        { maxSessions: config.maxSessions },
      );
      this.jobs = jobs;
      this.worker = new LivekitWorker({ credentials, agentName, version, jobs, logger: log, ...overrides?.worker });
    }
    this.heartbeat = new Heartbeat({
      store,
      logger: log,
      instanceId: this.instanceId,
      snapshot: () => this.status(),
      intervalMs: overrides?.heartbeatMs,
    });
  }

  get configured(): boolean {
    return this.worker !== undefined;
  }

  /** Where this process listens, for the nodes view (set once the HTTP server is bound). */
  listening(port: number): void {
    const host = this.deps.config.host;
    const name = host === '0.0.0.0' || host === '::' || host === '' ? hostname() : host;
    this.httpUrl = `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
    void this.heartbeat.beat();
  }

  start(): void {
    this.worker?.start();
    this.heartbeat.start();
  }

  /**
   * SIGTERM: WS_FULL to LiveKit at once (no new jobs), live LiveKit sessions may finish for up to
   * `timeoutMs`, then the rest end with `shutdown`.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.worker?.drain();
    await this.heartbeat.beat();
    await this.jobs?.drain(timeoutMs);
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    await this.heartbeat.stop();
  }

  /** This instance's status as worker-status reports it (without the heartbeat time). */
  status(): Omit<InstanceStatus, 'last_heartbeat_at'> {
    const { config, supervisor } = this.deps;
    const w = this.worker?.state;
    const jobs = this.jobs?.jobs() ?? [];
    const livekitSessions = jobs.filter((j) => j.sessionId !== null && supervisor.has(j.sessionId)).length;
    const iso = (ms: number | null | undefined) =>
      ms === null || ms === undefined ? null : new Date(ms).toISOString();
    return {
      instance_id: this.instanceId,
      server_id: `${hostname()}/${cluster.isWorker ? process.ppid : process.pid}`,
      host: hostname(),
      pid: process.pid,
      http_url: this.httpUrl,
      version,
      livekit: {
        configured: w !== undefined,
        registered: w?.connection === 'registered',
        state: w?.connection ?? 'not_configured',
        reason:
          w === undefined ? 'LiveKit is not configured (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET)' : w.reason,
        worker_id: w?.workerId ?? null,
        agent_name: config.livekit.agentName,
        reconnect_attempts: w?.reconnectAttempts ?? 0,
        next_retry_at: iso(w?.nextRetryAt),
        registered_at: iso(w?.registeredAt),
        jobs: jobs.length,
      },
      sessions: {
        livekit: livekitSessions,
        websocket: Math.max(0, supervisor.size - livekitSessions),
        total: supervisor.size,
      },
      load: this.jobs?.load() ?? Math.min(1, supervisor.size / config.maxSessions),
      capacity: config.maxSessions,
      draining: this.worker?.draining ?? false,
      started_at: this.startedAt,
    };
  }
}
