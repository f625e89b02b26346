import { readApiError } from './api-error.js';

/** `POST /sdk/v1/session`: the voice session grant a client connects with. */

export interface VoiceSessionGrant {
  session_id: string;
  connection_token: string;
  connection_url: string;
  /** Why the agent cannot serve here (e.g. no LLM): its turns will fail; empty when it can. Absent on older servers. */
  warnings?: string[];
}

export interface CreateSessionOptions {
  /** Parley's address, e.g. `https://voice.example.com` (no trailing path). */
  baseUrl: string;
  agentToken: string;
  userId?: string | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
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
  if (!res.ok) throw await readApiError(res);
  return (await res.json()) as VoiceSessionGrant;
}
