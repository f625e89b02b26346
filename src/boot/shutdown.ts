import type { Logger } from 'pino';

interface Step {
  name: string;
  run: () => Promise<void>;
  /** Synchronous last resort for exits that cannot wait (crash, forced exit). */
  urgent?: () => void;
  done?: boolean;
}

/**
 * Graceful shutdown: steps run in reverse order of registration (HTTP first, Redis last), each
 * awaited. A second signal, or `timeoutMs` (0: no limit), forces the exit with code 1 after the
 * urgent hooks ran (they SIGTERM child processes, so no redis-server is left behind).
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private running = false;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  add(name: string, run: () => Promise<void>, urgent?: () => void): void {
    this.steps.push({ name, run, urgent });
  }

  /**
   * Installs the SIGTERM/SIGINT handlers and the exit hook. `repeat: 'ignore'` (cluster workers):
   * a signal during the shutdown does not force the exit, since a terminal's Ctrl+C reaches the
   * workers and the primary, which tells them to drain too; the primary forces it when needed.
   */
  listen(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'], repeat: 'force' | 'ignore' = 'force'): void {
    for (const signal of signals)
      process.on(signal, () => (repeat === 'force' ? void this.run(signal) : this.begin(signal)));
    process.on('exit', () => this.runUrgent());
  }

  /** Starts the shutdown unless it is already running. */
  begin(reason: string): void {
    if (!this.running) void this.run(reason);
  }

  /** Runs every urgent hook, newest first; never throws. */
  runUrgent(): void {
    for (const step of [...this.steps].reverse()) {
      if (step.done === true) continue;
      try {
        step.urgent?.();
      } catch {
        /* exiting anyway */
      }
    }
  }

  /** Stops everything and exits: 0 when every step finished, 1 otherwise. */
  async run(reason: string): Promise<void> {
    if (this.running) {
      this.logger.warn({ reason }, 'second signal: forcing exit');
      this.forceExit();
      return;
    }
    this.running = true;
    this.logger.info({ reason }, 'shutting down');
    if (this.timeoutMs > 0) {
      setTimeout(() => {
        this.logger.error({ timeout_ms: this.timeoutMs }, 'shutdown timed out: forcing exit');
        this.forceExit();
      }, this.timeoutMs);
    }
    const ok = await this.close();
    this.logger.info('shutdown complete');
    process.exit(ok ? 0 : 1);
  }

  /** Runs the steps, newest first, without exiting; false when one of them failed. */
  async close(): Promise<boolean> {
    let ok = true;
    for (const step of [...this.steps].reverse()) {
      if (step.done === true) continue;
      try {
        await step.run();
        step.done = true;
      } catch (err) {
        ok = false;
        this.logger.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    return ok;
  }

  private forceExit(): never {
    this.runUrgent();
    process.exit(1);
  }
}
