import type { Logger } from 'pino';
import { ClusterMetricsUnavailable, type ProcessSnapshot, type WorkersSummary } from '../../metrics/cluster-metrics.js';
import type { Metrics } from '../../metrics/process-metrics.js';
import { parleyMessage, type BootMessage, type ToPrimary, type ToWorker } from './messages.js';

/**
 * The worker's side of the cluster channel: the boot message, readiness, and /health/metrics
 * across processes. (The primary asks a worker to drain with SIGTERM.)
 */

/** How long a worker waits for the primary's boot message. */
const bootWaitMs = 30_000;
/** How long a /health/metrics request waits for the primary's collection (which allows each worker 2 s). */
const metricsWaitMs = 5_000;

function send(message: ToPrimary): void {
  process.send?.(message);
}

/** The primary's boot message (the admin key, the Redis URL, the slot). */
export function receiveBoot(): Promise<BootMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error(`no boot message from the primary within ${bootWaitMs} ms`));
    }, bootWaitMs);
    const onMessage = (message: unknown) => {
      const boot = parleyMessage<ToWorker, 'boot'>(message, 'boot');
      if (boot === undefined) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(boot);
    };
    process.on('message', onMessage);
    send({ parley: 'boot-request' });
  });
}

export function reportReady(port: number): void {
  send({ parley: 'ready', port });
}

/**
 * Answers the primary's collection requests with this process's snapshot, and returns the
 * gatherer /health/metrics uses: ask the primary, which collects every worker's snapshot.
 */
export function serveClusterMetrics(
  metrics: Metrics,
  logger: Logger,
): () => Promise<{ snapshots: ProcessSnapshot[]; workers: WorkersSummary }> {
  const waiting = new Map<number, (reply: { snapshots: ProcessSnapshot[]; workers: WorkersSummary }) => void>();
  let nextId = 1;
  process.on('message', (message) => {
    const collect = parleyMessage<ToWorker, 'metrics-collect'>(message, 'metrics-collect');
    if (collect !== undefined) {
      metrics.snapshot().then(
        (snapshot) => send({ parley: 'metrics-snapshot', id: collect.id, snapshot }),
        // The primary lists the processes that answered; this one is left out of that scrape.
        (err: unknown) => logger.warn({ err }, 'metrics snapshot failed'),
      );
      return;
    }
    const reply = parleyMessage<ToWorker, 'metrics-reply'>(message, 'metrics-reply');
    if (reply !== undefined) waiting.get(reply.id)?.(reply);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new ClusterMetricsUnavailable(`the worker processes' figures did not come within ${metricsWaitMs} ms`));
      }, metricsWaitMs);
      waiting.set(id, (reply) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(reply);
      });
      send({ parley: 'metrics-request', id });
    });
}
