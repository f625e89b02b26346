import { adminKey } from './auth.js';
import { toApiError } from './client.js';

/** A conversation's recording, fetched whole with the admin key (never put in a URL). */
export interface Recording {
  /** An object URL of the WAV for an `<audio>` element; revoke it when done. */
  url: string;
  /** When its first sample was (ms since the epoch); null when the server does not know. */
  startedAt: number | null;
}

/**
 * GETs the recording as a blob: an `<audio src>` cannot send X-API-Key, so the panel fetches it
 * and plays an object URL. Resolves with null when the call has no recording (404
 * `recording_not_found`); rejects with the API error otherwise.
 */
export async function fetchRecording(conversationId: string, signal: AbortSignal): Promise<Recording | null> {
  const key = adminKey();
  const res = await fetch(`/admin/v1/conversations/${conversationId}/recording`, {
    headers: key === null ? {} : { 'X-API-Key': key },
    signal,
  });
  if (!res.ok) {
    const error = toApiError(res.status, await res.text(), res.headers.get('X-Request-Id'));
    if (error.code === 'recording_not_found') return null;
    throw error;
  }
  const started = res.headers.get('X-Recording-Started-At');
  const blob = await res.blob();
  return { url: URL.createObjectURL(blob), startedAt: started === null ? null : Date.parse(started) };
}
