/**
 * Bytes of audio waiting for the VAD, counted per process and per session: a frame is admitted
 * only while both stay under their bounds, and released once the VAD has read it. One instance
 * per process (`processBacklog`), shared by every session whatever its transport.
 */
export class AudioBacklog {
  private queued = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.queued;
  }

  /** A session's share, bounded by `maxBytes` and by this process budget. */
  session(maxBytes: number): SessionBacklog {
    return new SessionBacklog(this, maxBytes);
  }

  /** @internal */ take(bytes: number): boolean {
    if (this.queued + bytes > this.maxBytes) return false;
    this.queued += bytes;
    return true;
  }

  /** @internal */ give(bytes: number): void {
    this.queued -= bytes;
  }
}

export class SessionBacklog {
  private queued = 0;

  constructor(
    private readonly process: AudioBacklog,
    readonly maxBytes: number,
  ) {}

  get bytes(): number {
    return this.queued;
  }

  /** Reserves `bytes`; 'session' or 'process' names the bound that refused it. */
  admit(bytes: number): 'ok' | 'session' | 'process' {
    if (this.queued + bytes > this.maxBytes) return 'session';
    if (!this.process.take(bytes)) return 'process';
    this.queued += bytes;
    return 'ok';
  }

  release(bytes: number): void {
    this.queued -= bytes;
    this.process.give(bytes);
  }
}
