/** `POST /sdk/v1/session`: the voice session grant a client connects with. */

export interface VoiceSessionGrant {
  session_id: string;
  connection_token: string;
  connection_url: string;
}

export interface CreateSessionOptions {
  /** Parley's address, e.g. `https://voice.example.com` (no trailing path). */
  baseUrl: string;
  agentToken: string;
  userId?: string | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/** A non-2xx answer of Parley, with the fields of its error body. */
export class ParleyApiError extends Error {
  override readonly name = 'ParleyApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown,
  ) {
    super(message);
  }
}

/** Reads Parley's error shape `{error: {code, message, request_id, details}}`, or describes what came instead. */
export async function apiError(res: Response): Promise<ParleyApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as {
      error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
    };
    const e = body.error;
    if (e !== undefined && typeof e.code === 'string' && typeof e.message === 'string') {
      return new ParleyApiError(
        res.status,
        e.code,
        e.message,
        typeof e.request_id === 'string' ? e.request_id : null,
        e.details ?? null,
      );
    }
  } catch {
    // not JSON: described below
  }
  return new ParleyApiError(res.status, 'http_error', `Parley answered HTTP ${res.status}`, null, text.slice(0, 200));
}

/** Creates a voice session over Parley's WebSocket transport. Throws ParleyApiError on 4xx/5xx. */
export async function createVoiceSession(options: CreateSessionOptions): Promise<VoiceSessionGrant> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const body: Record<string, string> = { agent_token: options.agentToken, transport: 'websocket' };
  if (options.userId !== undefined) body['user_id'] = options.userId;
  const res = await doFetch(`${options.baseUrl.replace(/\/+$/, '')}/sdk/v1/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as VoiceSessionGrant;
}
