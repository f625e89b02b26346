/**
 * Bounds on inbound audio, the same for every transport (they apply in the session's microphone
 * graph, not in a transport). A client cannot make Parley hold or process more than real time
 * plus these allowances, however fast it sends.
 */
export interface IntakeLimits {
  /** Audio may run ahead of real time by this much (a client's jitter buffer, a reconnect); beyond it frames are dropped. */
  burstMs: number;
  /** Audio of one session waiting for the VAD, at most (16 kHz PCM16: 32 bytes per ms); room for a whole `burstMs`. */
  sessionBacklogBytes: number;
  /** Audio of all sessions of this process waiting for the VAD, at most. */
  processBacklogBytes: number;
}

export const defaultIntakeLimits: Readonly<IntakeLimits> = Object.freeze({
  burstMs: 5_000,
  sessionBacklogBytes: 6 * 32_000,
  processBacklogBytes: 32 * 1024 * 1024,
});

/** Bytes in a ms of the audio the VAD reads (16 kHz PCM16). */
const vadBytesPerMs = 32;

/** How much audio (ms) one session may have waiting for the VAD: past it, more is dropped unscored. */
export function sessionBacklogMs(limits: Partial<IntakeLimits> = {}): number {
  return (limits.sessionBacklogBytes ?? defaultIntakeLimits.sessionBacklogBytes) / vadBytesPerMs;
}

/** Why inbound audio was dropped. */
export type OverrunReason = 'faster_than_real_time' | 'session_backlog' | 'process_backlog';

/** What a session's intake dropped so far. */
export interface IntakeStats {
  droppedFrames: number;
  droppedMs: number;
}
