/** ISO 8601 timestamps with millisecond precision, UTC. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
