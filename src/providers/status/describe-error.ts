/** A short, operator-facing reason for a failed probe (no stack, no internals). */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
    if (err.name === 'TimeoutError') return 'timed out';
    if (code === 'ENOENT') return 'program not found';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND') return 'host not found';
    if (typeof code === 'string') return code;
    return err.message.split('\n')[0] ?? err.name;
  }
  return String(err);
}

/** Milliseconds to one decimal. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
