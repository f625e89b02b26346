import type { Logger } from 'pino';

/** The part of a node-redis client the watchdog drives. */
export interface WatchedClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  ping(): Promise<unknown>;
  destroy(): void;
  connect(): Promise<unknown>;
}

export interface RedisWatchdogOptions {
  /** A PING unanswered this long means Redis is frozen. */
  timeoutMs: number;
  logger?: Logger;
}

/**
 * Notices a Redis that accepts bytes but answers nothing (stopped with SIGSTOP, or a dead peer
 * behind a TCP path that still looks alive). node-redis has no deadline for a command once it is
 * written, so without this every request waiting on Redis would hang for as long as it is frozen.
 *
 * Every `timeoutMs / 4` it sends a PING unless one is pending; a PING pending for `timeoutMs` drops
 * the connection (every waiting command fails with DisconnectsClientError, answered 503) and opens
 * a new one with the client's reconnect strategy. While the new one cannot finish its handshake the
 * client is not ready, so commands fail at once. A command therefore waits at most about
 * `1.5 × timeoutMs` for a frozen Redis.
 */
export class RedisWatchdog {
  private readonly timer: NodeJS.Timeout;
  /** When the pending PING was sent (performance.now()); undefined when none is pending. */
  private probeSentAt: number | undefined;
  /** Bumped on every reset, so a PING of a dropped connection settling late is ignored. */
  private generation = 0;
  private resetting = false;
  private stopped = false;

  constructor(
    private readonly client: WatchedClient,
    private readonly options: RedisWatchdogOptions,
  ) {
    this.timer = setInterval(() => this.tick(), Math.max(10, Math.floor(options.timeoutMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** The client closed: by its owner (stop watching) or by this watchdog's own reset (carry on). */
  onEnd(): void {
    if (!this.resetting) this.stop();
  }

  private tick(): void {
    if (this.stopped || this.resetting) return;
    if (this.probeSentAt !== undefined) {
      if (performance.now() - this.probeSentAt >= this.options.timeoutMs) this.reset();
      return;
    }
    if (!this.client.isReady) return;
    const generation = this.generation;
    this.probeSentAt = performance.now();
    this.client
      .ping()
      // A failed PING is the connection's own error, already logged by its 'error' listener.
      .catch(() => undefined)
      .finally(() => {
        if (generation === this.generation) this.probeSentAt = undefined;
      });
  }

  private reset(): void {
    if (!this.client.isOpen) return;
    this.options.logger?.warn(
      { timeout_ms: this.options.timeoutMs },
      'redis did not answer a PING in time; dropping the connection and reconnecting',
    );
    this.generation++;
    this.probeSentAt = undefined;
    this.resetting = true;
    try {
      this.client.destroy();
    } finally {
      this.resetting = false;
    }
    this.client.connect().catch((err: unknown) => {
      // Only when the reconnect strategy gives up, which Parley's never does; log it all the same.
      this.options.logger?.error({ err }, 'redis reconnect failed');
    });
  }
}
