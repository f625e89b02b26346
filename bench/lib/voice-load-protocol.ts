/** IPC between bench/voice.ts and its client process, bench/lib/voice-load-side.ts. */

export interface SessionGrant {
  connection_url: string;
  connection_token: string;
}

/** 10(a): one session, audio and text turns alternating. */
export interface TurnsJob {
  job: 'turns';
  session: SessionGrant;
  /** Audio turns (each followed by a text turn), warm-up included. */
  audioTurns: number;
  /** Pace before each end of speech and after the answer (× real time); 1× in between. */
  speed: number;
  /** How far ahead of real time the fast parts may run (under the server's allowance). */
  allowanceMs: number;
  frameMs: number;
  /** Per audio turn: index, within that turn's frames, of the frame that completes the VAD's end-of-speech decision. */
  triggerFrames: number[];
  /** Per audio turn: index of the frame where the speech ends (real time from there on). */
  spokenUntilFrames: number[];
  /** Pause after each answer, so the next turn starts with the session listening again. */
  gapMs: number;
  text: string;
  timeoutMs: number;
}

export interface TurnSample {
  kind: 'audio' | 'text';
  /** Audio: end-of-speech decision frame sent → `transcript` received; null for text. */
  send_to_transcript_ms: number | null;
  /** Audio: the frame where the speech ends sent → `audio_start` received. Text: text message sent → `audio_start` received. */
  speech_end_to_audio_start_ms: number;
  /** An `interrupted` event arrived during the turn (the sample is not clean). */
  interrupted: boolean;
}

export interface TurnsResult {
  job: 'turns';
  samples: TurnSample[];
}

/** 10(b): N sessions streaming at real-time pace. */
export interface LoadJob {
  job: 'load';
  sessions: SessionGrant[];
  frameMs: number;
  /** Each session streams this long (the looped clip, from its start). */
  durationMs: number;
  /** Session i starts streaming `i / N × staggerMs` after `go`, so that turns do not all land at once. */
  staggerMs: number;
  /** Frame indices (into the looped clip's frames) that complete an end-of-speech decision. */
  triggerFrames: number[];
  /** After the last frame, how long to wait for outstanding transcripts. */
  graceMs: number;
}

export interface LoadResult {
  job: 'load';
  /** End-of-speech frame sent → `transcript` received, ms, every utterance of every session. */
  transcript_latencies_ms: number[];
  /** End-of-speech frames sent whose transcript never came. */
  missing_transcripts: number;
  frames_sent: number;
  /** How late the client sent each frame against its real-time schedule: p50/p99/max, ms. */
  send_lateness_ms: { p50: number; p99: number; max: number };
  /** The client process's own event-loop delay while streaming (its receive timestamps are this late). */
  client_loop_delay_ms: { p50: number; p99: number; max: number };
  /** The client process's CPU time while streaming, ms. */
  client_cpu_ms: number;
  wall_ms: number;
  responses: number;
  errors: string[];
}

/** bench/voice (c): N sessions each streaming a conversation (questions and pauses) at real-time pace. */
export interface TalkJob {
  job: 'talk';
  sessions: SessionGrant[];
  frameMs: number;
  /** A 16 kHz mono WAV file every session streams once, from its start. */
  clipPath: string;
  /** Per utterance in the clip: index of the frame holding its last speech sample. */
  speechEndFrames: number[];
  /** Session i starts `i / N × staggerMs` after the first. */
  staggerMs: number;
  /** After the last frame, how long to wait for outstanding answers. */
  graceMs: number;
}

export interface TalkResult {
  job: 'talk';
  /** Per session, per utterance: speech-end frame sent → first `audio_start` before the next speech end (null: none). */
  waits_ms: (number | null)[][];
  /** Per session: the `transcript` events' texts, in order. */
  transcripts: string[][];
  send_lateness_ms: { p50: number; p99: number; max: number };
  client_loop_delay_ms: { p50: number; p99: number; max: number };
  client_cpu_ms: number;
  wall_ms: number;
  errors: string[];
}

export type ParentMessage = TurnsJob | LoadJob | TalkJob | { go: true } | { close: true } | { exit: true };
export type ChildMessage =
  | { ready: true }
  | { connected: number }
  | TurnsResult
  | LoadResult
  | TalkResult
  | { closed: number }
  | { failed: string };
