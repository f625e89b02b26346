/**
 * What a voice session and its user say to each other, whatever carries it. Each transport maps
 * these to its own wire: the WebSocket protocol sends them as JSON text messages as they are
 * (realtime/websocket/protocol.ts); LiveKit as text streams, chat messages and participant
 * attributes (realtime/livekit/livekit-transport.ts).
 */

/** Longest typed message a session takes, on every transport. */
export const maxTypedTextChars = 4000;

/**
 * From the user: typed text (trimmed, 1 to `maxTypedTextChars` characters), keypad digits (a phone
 * call's DTMF: the session answers them as the text `keypad: <digits>` and queues a `dtmf` event),
 * or the end of the call. Only the phone transport sends `dtmf`; the WebSocket protocol has no such
 * message.
 */
export type ClientMessage = { type: 'text'; text: string } | { type: 'dtmf'; digits: string } | { type: 'end' };

/** To the user: the session's progress, turn by turn. */
export type ServerEvent =
  | { type: 'ready'; session_id: string; sample_rate: number }
  | { type: 'transcript'; turn: number; text: string }
  /** The answer so far (`final: false`, one per sentence as it is produced), then whole (`final: true`). */
  | { type: 'response'; turn: number; text: string; final: boolean }
  | { type: 'audio_start'; turn: number; sample_rate: number }
  | { type: 'audio_end'; turn: number }
  /** The user started speaking over the agent: playback is paused (the client pauses its player, keeping its buffer). */
  | { type: 'playback_paused'; turn: number }
  /** It was not an interruption (an acknowledgement, a noise): playback goes on where it paused. */
  | { type: 'playback_resumed'; turn: number }
  /** A barge-in: the rest of the turn's audio is dropped (the client flushes its buffer). */
  | { type: 'interrupted'; turn: number }
  /** `reason` (a failed turn's, `turn_failed`): the error record's type, e.g. `llm_not_configured`, `stt_error`. */
  | { type: 'error'; code: string; message: string; reason?: string }
  /** Call control: hand the user over to `to` (null: the client decides); `ended` (`transferred`) follows. */
  | { type: 'transfer'; to: string | null }
  | { type: 'ended'; reason: string };
