import type { Job } from '@livekit/protocol';
import type { Logger } from 'pino';
import type { LivekitCredentials } from './tokens.js';

/** What the worker asks of whoever runs the jobs (LivekitJobs). */
export interface JobHost {
  /**
   * Decides whether to take a job LiveKit offers; a refusal says why (logged). `resuming`: LiveKit
   * offers again a job whose worker went away (AvailabilityRequest.resuming).
   */
  offer(job: Job, resuming?: boolean): Promise<{ available: boolean; reason: string | null }>;
  /** Runs an assigned job: joins the room with `token` at `url`. */
  assign(job: Job, url: string, token: string): void;
  /** LiveKit ended the job (room gone, dispatch deleted, …). */
  terminate(jobId: string): void;
  /** An accepted job whose assignment never came. */
  abandon(jobId: string): void;
  /** 0–1; 1 means no more jobs. */
  load(): number;
  readonly jobCount: number;
}

export type WorkerConnection = 'connecting' | 'registered' | 'reconnecting' | 'stopped';

/** The worker's registration as worker-status shows it. */
export interface WorkerState {
  connection: WorkerConnection;
  workerId: string | null;
  /** Why it is not registered (the last connection error); null while registered. */
  reason: string | null;
  reconnectAttempts: number;
  /** When the next connection attempt is due (ms since epoch), while reconnecting. */
  nextRetryAt: number | null;
  registeredAt: number | null;
  draining: boolean;
}

export interface WorkerOptions {
  credentials: LivekitCredentials;
  agentName: string;
  version: string;
  jobs: JobHost;
  logger: Logger;
  /** Load report interval; LiveKit's agents send one every 2.5 s. */
  statusIntervalMs?: number;
  /** First reconnect delay; doubles per failed attempt up to `maxBackoffMs`, with ±25 % jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long an accepted job waits for its assignment. */
  assignmentTimeoutMs?: number;
  /** How long the server has to answer the registration. */
  registerTimeoutMs?: number;
}
