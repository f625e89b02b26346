import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * A V8 CPU profile of a window of this process's life (not its start-up, which `--cpu-prof`
 * includes and which dwarfs a few seconds of load): SIGUSR2 starts sampling, `stop()` writes the
 * `.cpuprofile`. The parent sends SIGUSR2 once warm-up is done.
 */
export class WindowProfiler {
  private readonly session = new Session();
  private started: Promise<void> | undefined;

  constructor(
    private readonly outFile: string,
    samplingIntervalUs = 100,
  ) {
    this.session.connect();
    const ready = this.session
      .post('Profiler.enable')
      .then(() => this.session.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs }));
    process.on('SIGUSR2', () => {
      this.started ??= ready.then(() => this.session.post('Profiler.start'));
    });
  }

  /** Writes the profile when sampling was started; a no-op otherwise. */
  async stop(): Promise<void> {
    if (this.started === undefined) return;
    await this.started;
    const { profile } = await this.session.post('Profiler.stop');
    writeFileSync(this.outFile, JSON.stringify(profile));
    this.session.disconnect();
  }
}
