import { defaultVadOptions } from '../../src/pipeline/vad/options.js';

/** monitorEventLoopDelay's timer period; its samples are periods, so this is subtracted. */
export const loopResolutionMs = 5;
/**
 * The VAD settings of an agent created with default settings (the bench sets none), used by the
 * offline pass that finds where each utterance ends and is decided.
 */
export const vadSettings = {
  threshold: defaultVadOptions.threshold,
  minSilenceMs: defaultVadOptions.minSilenceMs,
  prefixPaddingMs: defaultVadOptions.prefixPaddingMs,
  maxUtteranceMs: defaultVadOptions.maxUtteranceMs,
};
/** Parley's share of a turn (user-perceived minus endpointing and the providers' calls), p50. */
export const targetShareP50Ms = 3;

export interface VoiceBenchOptions {
  frameMs: number;
  /** (a) audio turns measured (each followed by a text turn), after `warmupTurns` thrown away. */
  turns: number;
  warmupTurns: number;
  /**
   * (a) pace of the audio before each utterance's end, × real time, within the server's
   * real-time allowance (the client keeps 1 s under it); real time from the end of speech on.
   */
  turnSpeed: number;
  /** (a) pause after each answer before the next turn. */
  turnGapMs: number;
  /** (b) session counts to try, in order. */
  sessions: number[];
  /** (b) how long each session streams. */
  streamMs: number;
  /** (b) session starts spread over this long. */
  staggerMs: number;
  /** (b) wait for outstanding transcripts after the last frame. */
  graceMs: number;
  /** (b) p99 frame lag (Parley's event-loop delay) above this, twice, ends the ramp. */
  lagLimitMs: number;
  /** (b) the ramp stops before a step that would end past this much time. */
  loadBudgetMs: number;
  /** (c) session counts with the real recogniser (each also with the instant stand-in); [] skips (c). */
  sttSessions: number[];
}

export const defaultVoiceBenchOptions: VoiceBenchOptions = {
  frameMs: 20,
  turns: 20,
  warmupTurns: 2,
  turnSpeed: 8,
  turnGapMs: 150,
  sessions: [1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512],
  streamMs: 10_000,
  staggerMs: 2_000,
  graceMs: 1_500,
  lagLimitMs: 20,
  loadBudgetMs: 240_000,
  sttSessions: [1, 4, 6, 8, 12, 16],
};
