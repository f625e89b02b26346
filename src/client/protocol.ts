/**
 * The messages of Parley's WebSocket media protocol as a client sees them (README "WebSocket
 * media"). Binary messages are PCM16LE mono audio at the declared sample rate in both directions;
 * text messages are these JSON objects. The server may add message types: a client types them as
 * `UnknownServerMessage` and carries on.
 */

export interface ReadyMessage {
  type: 'ready';
  session_id: string;
  sample_rate: number;
}
export interface TranscriptMessage {
  type: 'transcript';
  turn: number;
  text: string;
}
/** Captions of the answer: the text so far, one per sentence as it is produced, then the whole with `final: true` (servers before that send it once, without `final`). */
export interface ResponseMessage {
  type: 'response';
  turn: number;
  text: string;
  final?: boolean;
}
export interface AudioStartMessage {
  type: 'audio_start';
  turn: number;
  sample_rate: number;
}
export interface AudioEndMessage {
  type: 'audio_end';
  turn: number;
}
/** The user started talking over the agent: pause playback, keeping what is buffered. */
export interface PlaybackPausedMessage {
  type: 'playback_paused';
  turn: number;
}
/** It was not an interruption ("uh-huh", a noise): play on from where playback paused. */
export interface PlaybackResumedMessage {
  type: 'playback_resumed';
  turn: number;
}
export interface InterruptedMessage {
  type: 'interrupted';
  turn: number;
}
export interface ErrorMessage {
  type: 'error';
  code: string;
  message: string;
  /** A failed turn's (`turn_failed`) cause: its error record's type (`llm_not_configured`, `stt_error`, …). */
  reason?: string;
}
export interface EndedMessage {
  type: 'ended';
  reason: string;
}

/** A message type this client does not know yet (a newer server); its fields as sent. */
export interface UnknownServerMessage {
  type: string;
  [field: string]: unknown;
}

export type KnownServerMessage =
  | ReadyMessage
  | TranscriptMessage
  | ResponseMessage
  | AudioStartMessage
  | AudioEndMessage
  | PlaybackPausedMessage
  | PlaybackResumedMessage
  | InterruptedMessage
  | ErrorMessage
  | EndedMessage;

export const knownServerMessageTypes = [
  'ready',
  'transcript',
  'response',
  'audio_start',
  'audio_end',
  'playback_paused',
  'playback_resumed',
  'interrupted',
  'error',
  'ended',
] as const satisfies readonly KnownServerMessage['type'][];

/**
 * Messages after which the client drops what it has buffered (barge-in). `playback_paused` is not
 * one: the agent may resume where it paused, so the player pauses and keeps its buffer.
 */
export const flushingMessageTypes: readonly string[] = ['interrupted'];

export type ClientMessage = { type: 'text'; text: string } | { type: 'end' };

/** Parses one text message; null when it is not a JSON object with a string `type`. */
export function parseServerMessage(text: string): KnownServerMessage | UnknownServerMessage | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null; // not JSON: no server message, which null says to the caller
  }
  if (typeof raw !== 'object' || raw === null || typeof (raw as { type?: unknown }).type !== 'string') return null;
  return raw as KnownServerMessage | UnknownServerMessage;
}

export function isKnown(message: KnownServerMessage | UnknownServerMessage): message is KnownServerMessage {
  return (knownServerMessageTypes as readonly string[]).includes(message.type);
}
