/**
 * The messages of OpenAI's Realtime API that a transcription session uses, in its GA form
 * (`wss://…/v1/realtime?intent=transcription`, no `OpenAI-Beta` header): what Parley sends, and
 * the server events it reads. Field names as OpenAI's API reference gives them.
 */

/** The Realtime API's input audio: PCM16 little-endian mono at 24 kHz (the only PCM rate it takes). */
export const realtimeRate = 24_000;

/** What a transcription session is configured with (`session.update`). */
export interface TranscriptionSettings {
  model: string;
  /** ISO 639-1, or null to let the model detect. */
  language: string | null;
  /** Words and phrases to expect (the agent's `expected_phrases`), or null. */
  prompt: string | null;
}

/**
 * The session update: 24 kHz PCM, the model, language and prompt, and `turn_detection: null`
 * (server VAD off: Parley's VAD ends the utterance and commits it).
 */
export function sessionUpdate(settings: TranscriptionSettings): string {
  const transcription = {
    model: settings.model,
    ...(settings.language === null ? {} : { language: settings.language }),
    ...(settings.prompt === null ? {} : { prompt: settings.prompt }),
  };
  return JSON.stringify({
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: realtimeRate }, transcription, turn_detection: null } },
    },
  });
}

/** `input_audio_buffer.append` of 24 kHz samples (sent little-endian, as every platform Node runs on stores them). */
export function appendAudio(samples: Int16Array): string {
  const audio = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
  return JSON.stringify({ type: 'input_audio_buffer.append', audio });
}

export const commitAudio = JSON.stringify({ type: 'input_audio_buffer.commit' });
export const clearAudio = JSON.stringify({ type: 'input_audio_buffer.clear' });

/** The `error` of an `error` event or of a failed transcription. */
export interface RealtimeError {
  type?: string;
  code?: string | null;
  message?: string;
}

/** A server event, as far as Parley reads it. */
export type ServerEvent =
  | { type: 'session.created' | 'session.updated' }
  | { type: 'input_audio_buffer.committed'; item_id: string }
  | { type: 'conversation.item.input_audio_transcription.delta'; item_id: string; delta: string }
  | { type: 'conversation.item.input_audio_transcription.completed'; item_id: string; transcript: string }
  | { type: 'conversation.item.input_audio_transcription.failed'; item_id: string; error: RealtimeError }
  | { type: 'error'; error: RealtimeError }
  /** Any other event (`conversation.item.added`, …): progress, nothing to read. */
  | { type: 'other' };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One server message read, or null when it is not a JSON event at all. */
export function parseServerEvent(data: string): ServerEvent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return null; // the caller reports the message as unreadable
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const e = raw as Record<string, unknown>;
  const itemId = str(e['item_id']) ?? '';
  switch (e['type']) {
    case 'session.created':
    case 'session.updated':
      return { type: e['type'] };
    case 'input_audio_buffer.committed':
      return { type: e['type'], item_id: itemId };
    case 'conversation.item.input_audio_transcription.delta':
      return { type: e['type'], item_id: itemId, delta: str(e['delta']) ?? '' };
    case 'conversation.item.input_audio_transcription.completed': {
      const transcript = str(e['transcript']);
      return transcript === undefined ? null : { type: e['type'], item_id: itemId, transcript };
    }
    case 'conversation.item.input_audio_transcription.failed':
      return { type: e['type'], item_id: itemId, error: errorOf(e['error']) };
    case 'error':
      return { type: 'error', error: errorOf(e['error']) };
    default:
      return typeof e['type'] === 'string' ? { type: 'other' } : null;
  }
}

function errorOf(raw: unknown): RealtimeError {
  if (typeof raw !== 'object' || raw === null) return {};
  const e = raw as Record<string, unknown>;
  return { type: str(e['type']), code: str(e['code']) ?? null, message: str(e['message']) };
}

/** `code (message)`, e.g. `input_audio_buffer_commit_empty (Error committing input audio buffer: …)`. */
export function describeRealtimeError(error: RealtimeError): string {
  const what = error.code ?? error.type ?? 'error';
  return error.message === undefined ? what : `${what} (${error.message.slice(0, 300)})`;
}
