import type { EndpointingWaits } from './turn-words/endpointing.js';

/** The session machine's inputs, context, events and emitted events (./session.machine.ts). */

export type EndReason =
  'idle_timeout' | 'max_duration' | 'client_hangup' | 'error' | 'shutdown' | 'agent_hangup' | 'transferred';

/**
 * Call control an answer asked for (src/actions): hang up, or hand the caller over to `to`. The
 * reply actor sends ACT once the closing words have played; the `act` actor carries it out.
 */
export type CallAction = { type: 'end_call' } | { type: 'transfer'; to: string | null };

/** What `act` resolves with: the reason the session ends with (it throws when the action failed). */
export type ActOutput = Extract<EndReason, 'agent_hangup' | 'transferred'>;

/** What a turn starts from: an utterance or a typed message. Times are wall-clock ms. */
export type TurnInput =
  | {
      kind: 'audio';
      audio: Int16Array;
      /** Stream time of `audio[0]` (to join the segments of one utterance). */
      startMs: number;
      durationMs: number;
      speechEndedAt: number;
      decidedAt: number;
      /** Already transcribed (speech heard over the agent that interrupted it). */
      transcript?: string;
    }
  | { kind: 'text'; text: string; receivedAt: number };

export type AudioInput = Extract<TurnInput, { kind: 'audio' }>;

/** The agent's turn-taking settings (README "Turn-taking"). */
export interface TurnTaking {
  /** Smart endpointing: tentative turns at the short silence, word-based waits. Else SPEECH_END ends the turn. */
  smart: boolean;
  waits: EndpointingWaits;
  /** End-of-turn probability at or above which a tentative turn is confirmed at once. */
  smartTurnThreshold: number;
  backchannelWords: readonly string[];
  stopWords: readonly string[];
}

export interface SessionMachineInput {
  greeting: string | null;
  interruptionsEnabled: boolean;
  /** User speech over the agent must last this long (and not be a backchannel) to interrupt. */
  interruptionMinSpeechMs: number;
  idleTimeoutMs: number;
  maxDurationMs: number;
  turnTaking: TurnTaking;
}

export interface SessionContext extends SessionMachineInput {
  /** Turns started so far; the current turn's number while one runs (tentative ones included). */
  turn: number;
  pending: TurnInput | null;
  /** Whether the current turn is confirmed (false while tentative). */
  confirmed: boolean;
  /** A tentative utterance the user went on from: the next segment is joined to it. */
  held: AudioInput | null;
  /** Silence still to wait for, once the tentative turn's transcript is known. */
  waitMs: number;
  /** An utterance finished while the agent was answering with interruptions off: the next turn. */
  queued: TurnInput | null;
  /** Transcript of the current turn, once known. */
  transcript: string | null;
  /** Speech heard over the agent while its playback is paused, and whether it lasted long enough. */
  overheard: AudioInput | null;
  overlapLongEnough: boolean;
  endReason: EndReason | null;
  error: string | null;
  /** The call control being carried out (state `acting`). */
  action: CallAction | null;
}

export type SessionEvent =
  /** Maybe speech: a VAD window over the threshold, not yet confirmed. */
  | { type: 'SPEECH_ONSET' }
  /** That onset did not last `min_speech`: not speech. */
  | { type: 'SPEECH_DISMISSED' }
  | { type: 'SPEECH_START' }
  | {
      type: 'SPEECH_END';
      audio: Int16Array;
      /** Stream time of `audio[0]`. */
      startMs: number;
      durationMs: number;
      /** When the user stopped speaking. */
      speechEndedAt: number;
      /** When the VAD decided the speech was over. */
      decidedAt: number;
    }
  | { type: 'TEXT'; text: string; receivedAt: number }
  /**
   * The turn's transcript, and when it arrived (wall-clock ms). `complete`: evidence on the box
   * (language model, pitch and fade, src/pipeline/turn/statement-end.ts) says an unpunctuated
   * transcript is a finished statement (true) or not (false; for a question without punctuation,
   * that the voice stopped at full strength); absent when nothing judged it.
   */
  | { type: 'TRANSCRIBED'; text: string; at: number; complete?: boolean }
  | { type: 'END_OF_TURN'; probability: number }
  | { type: 'OVERHEARD'; text: string }
  /**
   * The recogniser's hypothesis so far of the speech over the agent, sent while it is spoken;
   * `speechMs`: how long that speech had gone on (from its onset) when the hypothesis was read;
   * `murmured`: whether a hypothesis of this speech so far held a lone letter (a hum's mark).
   */
  | { type: 'OVERHEARING'; partial: string; speechMs: number; murmured: boolean }
  /** Speech over the agent has gone on long without a pause (an STT without a hypothesis so far). */
  | { type: 'LONG_SPEECH' }
  /** The VAD has scored the audio up to the end of a tentative turn's wait: the silence was really heard. */
  | { type: 'SILENCE_HEARD' }
  | { type: 'AUDIO_STARTED' }
  | { type: 'SPEAK_DONE' }
  | { type: 'REPLY_DONE' }
  | { type: 'REPLY_FAILED'; error: string }
  /** The turn's answer asked for call control and its words have played. */
  | { type: 'ACT'; action: CallAction }
  | { type: 'HANGUP' }
  | { type: 'SHUTDOWN' }
  | { type: 'FAIL'; error: string };

export type SessionEmitted =
  /** The turn is confirmed: its reply may speak, call the webhook and be recorded. */
  | { type: 'turn_started'; turn: number; input: TurnInput }
  | { type: 'playback_paused'; turn: number }
  | { type: 'playback_resumed'; turn: number }
  | { type: 'interrupted'; turn: number; transcript: string | null }
  | { type: 'ended'; reason: EndReason; error: string | null };

export interface SpeakInput {
  text: string;
}

export interface ReplyInput {
  turn: number;
  input: TurnInput;
  /** False for a tentative turn: hold back until `turn_started` for this turn. */
  confirmed: boolean;
}

export interface AudioCheckInput {
  audio: Int16Array;
  /** Stream time of `audio[0]` (a streaming recogniser finds its segments by it). */
  startMs: number;
}
