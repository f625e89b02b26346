import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { describeError } from '../status/describe-error.js';

export const realtimeLabel = 'openai-realtime';

/** OpenAI's Realtime endpoint, when PARLEY_OPENAI_REALTIME_URL is unset. */
export const defaultRealtimeUrl = 'wss://api.openai.com/v1/realtime';

/** Where the Realtime API is and the key it takes (PARLEY_OPENAI_REALTIME_URL, OPENAI_API_KEY). */
export interface RealtimeEndpoint {
  /** Undefined: OpenAI's (`defaultRealtimeUrl`). */
  url: string | undefined;
  apiKey: string | undefined;
}

/** Why the provider cannot be used here (no key and no server of one's own), or null when it can. */
export function realtimeReason(endpoint: RealtimeEndpoint): string | null {
  if (endpoint.apiKey !== undefined || endpoint.url !== undefined) return null;
  return 'set OPENAI_API_KEY (api.openai.com), or PARLEY_OPENAI_REALTIME_URL (a server speaking the Realtime transcription protocol)';
}

/** The endpoint's address with `intent=transcription` (a transcription session, not a conversation). */
export function transcriptionUrl(endpoint: RealtimeEndpoint): string {
  const url = new URL(endpoint.url ?? defaultRealtimeUrl);
  url.searchParams.set('intent', 'transcription');
  return url.toString();
}

/**
 * Opens a transcription session's socket, the key in `Authorization: Bearer`. A handshake the
 * server answers with an HTTP status (401 for a bad key) calls `refused` with the reason (status,
 * the server's message, what to check); every other failure comes as the socket's own `error` and
 * `close` events.
 */
export function connectRealtime(endpoint: RealtimeEndpoint, refused: (reason: string) => void): WebSocket {
  const ws = new WebSocket(transcriptionUrl(endpoint), {
    headers: endpoint.apiKey === undefined ? {} : { Authorization: `Bearer ${endpoint.apiKey}` },
    perMessageDeflate: false,
  });
  ws.on('unexpected-response', (request, response) => {
    void refusal(response).then((reason) => {
      refused(reason);
      request.destroy();
    });
  });
  return ws;
}

/** What a refused handshake says: its status and the server's message, and what to check. */
async function refusal(response: IncomingMessage): Promise<string> {
  const status = response.statusCode ?? 0;
  let body = '';
  try {
    for await (const chunk of response) {
      body += String(chunk);
      if (body.length > 2000) break;
    }
  } catch {
    // the body is only a detail of the refusal; its status says enough
  }
  const detail = serverMessage(body);
  const answer = `HTTP ${status}${detail === null ? '' : `: ${detail}`}`;
  if (status === 401 || status === 403) return `the server refused the key (${answer}); check OPENAI_API_KEY`;
  if (status === 404) return `no Realtime endpoint there (${answer}); check PARLEY_OPENAI_REALTIME_URL`;
  return `the server refused the connection (${answer})`;
}

function serverMessage(body: string): string | null {
  if (body.trim() === '') return null;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message.slice(0, 200);
  } catch {
    // not JSON: the text itself is the message
  }
  return body.trim().slice(0, 200);
}

/** A socket that closed before the transcript, as a reason. */
export function closedReason(code: number, reason: string): string {
  if (code === 1006) return 'the connection dropped';
  return `the server closed the connection (code ${code}${reason === '' ? '' : `: ${reason.slice(0, 200)}`})`;
}

/** A socket that could not connect (refused, unknown host, TLS), as a reason. */
export function unreachableReason(endpoint: RealtimeEndpoint, err: Error): string {
  return `could not reach ${new URL(endpoint.url ?? defaultRealtimeUrl).host}: ${describeError(err)}`;
}
