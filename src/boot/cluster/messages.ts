import type { ProcessSnapshot, WorkersSummary } from '../../metrics/cluster-metrics.js';

/**
 * The IPC messages between the primary and its worker processes (node:cluster's channel). Each
 * carries `parley` naming its kind, so they never clash with prom-client's own cluster messages.
 */

/** Primary → worker, once: what the primary resolved before forking (secrets stay off env and argv). */
export interface BootMessage {
  parley: 'boot';
  /** The worker's slot, 1..PARLEY_WORKERS; a restarted worker takes over the slot of the one it replaces. */
  slot: number;
  adminApiKey: string;
  redisUrl: string;
  /** Whether this worker logs what the server uses at start: the first worker of slot 1 only, so a server says it once. */
  reportsStartup: boolean;
}

/** Worker → primary: ready for its boot message (its listener is attached; earlier ones would be lost). */
export interface BootRequestMessage {
  parley: 'boot-request';
}

/** Worker → primary: listening, serving. */
export interface ReadyMessage {
  parley: 'ready';
  port: number;
}

/** Worker → primary: a /health/metrics request wants every process's figures. */
export interface MetricsRequestMessage {
  parley: 'metrics-request';
  id: number;
}

/** Primary → every worker: send your snapshot for request `id`. */
export interface MetricsCollectMessage {
  parley: 'metrics-collect';
  id: number;
}

/** Worker → primary: one process's snapshot. */
export interface MetricsSnapshotMessage {
  parley: 'metrics-snapshot';
  id: number;
  snapshot: ProcessSnapshot;
}

/** Primary → the asking worker: the snapshots that came within the time limit. */
export interface MetricsReplyMessage {
  parley: 'metrics-reply';
  id: number;
  snapshots: ProcessSnapshot[];
  workers: WorkersSummary;
}

/** The primary asks a worker to drain with SIGTERM, not a message: a worker still booting obeys it too. */
export type ToWorker = BootMessage | MetricsCollectMessage | MetricsReplyMessage;
export type ToPrimary = BootRequestMessage | ReadyMessage | MetricsRequestMessage | MetricsSnapshotMessage;

/** A Parley message of kind `kind`, or undefined for anything else on the channel. */
export function parleyMessage<M extends { parley: string }, K extends M['parley']>(
  message: unknown,
  kind: K,
): Extract<M, { parley: K }> | undefined {
  return typeof message === 'object' && message !== null && (message as { parley?: unknown }).parley === kind
    ? (message as Extract<M, { parley: K }>)
    : undefined;
}
