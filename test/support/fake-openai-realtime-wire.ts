import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The wire of the fake Realtime API (fake-openai-realtime.ts): its shapes, the session objects and
 * checks it makes, the HTTP refusals of the handshake.
 */

/** An `error` object as OpenAI's Realtime API sends it (in `error` events and failed transcriptions). */
export interface FakeRealtimeError {
  type: string;
  code: string | null;
  message: string;
}

/** What the server did when the Realtime backend failed (the real one's wording). */
export const serverError: FakeRealtimeError = {
  type: 'server_error',
  code: null,
  message: 'The server had an error while processing your request. Sorry about that!',
};

/**
 * How one utterance (a connection that sends audio) is answered: a transcript (deltas, then
 * `completed`), or a fault: an `error` event or a close after `afterAppends` appends (mid-stream,
 * default 5; at the commit when fewer came), a `failed` transcription after the commit, or a
 * commit answered and then nothing.
 */
export type ScriptedUtterance =
  | string
  | { fault: 'error'; error: FakeRealtimeError; afterAppends?: number }
  | { fault: 'close'; code: number; reason?: string; afterAppends?: number }
  | { fault: 'failed'; error: FakeRealtimeError }
  | { fault: 'stall' };

/** One WebSocket connection as the fake saw it. */
export interface RealtimeConnection {
  index: number;
  url: string;
  headers: IncomingHttpHeaders;
  /** `OpenAI-Beta: realtime=v1`: the beta events (`transcription_session.*`, `input_audio_format`). */
  beta: boolean;
  /** Every client event's type, in order. */
  received: string[];
  /** The last session configuration the client sent (`session` of the update), as sent. */
  session: Record<string, unknown> | null;
  appends: number;
  /** The audio of each commit, 24 kHz PCM16 decoded from the appends. */
  committed: Int16Array[];
  /** The utterance this connection's audio is answered with (taken at its first append); null: none, or past the script's end. */
  utterance: ScriptedUtterance | null;
  /** How the socket closed: the close code, and whether the client closed it first. */
  closed: { code: number; byClient: boolean } | null;
}

export const rate = 24_000;
const sessionDefaults = { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 };
export const gaEvents = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
];
export const betaEvents = gaEvents.map((t) => (t === 'session.update' ? 'transcription_session.update' : t));

/** Why a session update is refused (the API's checks the fake makes), or null. */
export function sessionProblem(c: RealtimeConnection, session: unknown): string | null {
  if (typeof session !== 'object' || session === null) return "Missing required parameter: 'session'.";
  const s = session as Record<string, unknown>;
  if (c.beta) {
    const format = s['input_audio_format'];
    return format === undefined || ['pcm16', 'g711_ulaw', 'g711_alaw'].includes(String(format))
      ? null
      : `Invalid value: '${String(format)}'. Supported values are: 'pcm16', 'g711_ulaw', and 'g711_alaw'.`;
  }
  if (s['type'] !== 'transcription') return `Invalid value: '${String(s['type'])}' for session.type.`;
  const format = (s['audio'] as { input?: { format?: { type?: unknown; rate?: unknown } } } | undefined)?.input?.format;
  if (format?.type === 'audio/pcm' && format.rate !== undefined && format.rate !== rate)
    return `Invalid value: ${String(format.rate)} for session.audio.input.format.rate. Only 24000 is supported.`;
  return null;
}

/** The session object of a created/updated event (what was set, over the defaults). */
export function sessionObject(c: RealtimeConnection, update: Record<string, unknown> | null): Record<string, unknown> {
  const id = `sess_fake_${c.index}`;
  if (c.beta)
    return {
      id,
      object: 'realtime.transcription_session',
      input_audio_format: 'pcm16',
      input_audio_transcription: null,
      turn_detection: sessionDefaults,
      ...update,
    };
  const input = { format: { type: 'audio/pcm', rate }, transcription: null, turn_detection: sessionDefaults };
  const asked = (update?.['audio'] as { input?: Record<string, unknown> } | undefined)?.input ?? {};
  return { object: 'realtime.session', type: 'transcription', id, audio: { input: { ...input, ...asked } } };
}

/** Refuses a handshake as the API does: an HTTP status with its JSON error body. */
export function refuse(socket: Duplex, status: number, type: string, code: string | null, message: string): void {
  const body = JSON.stringify({ error: { message, type, param: null, code } });
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The append after which an utterance's mid-stream fault fires, or null when it has none. */
export function midStreamAfter(u: ScriptedUtterance | null): number | null {
  if (u === null || typeof u === 'string' || (u.fault !== 'error' && u.fault !== 'close')) return null;
  return u.afterAppends ?? 5;
}
