/**
 * The Admin and SDK calls the benches make over HTTP (on test/support's admin client): agents on a
 * preset, sessions opened in batches, and what the conversations stored read back afterwards.
 */
import { adminClient } from '../../test/support/admin-client.js';
import { standInPreset } from './stand-in-preset.js';
import type { SessionGrant } from './voice-load-protocol.js';

/** The admin key of every bench's Parley (bench/lib/bench-parley.ts, bench/lib/scale-nodes.ts). */
export const benchAdminKey = 'bench-admin-key-0123456789';

/** An Admin API call with the bench's key; its JSON body, or an error naming the status and body. */
export async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await adminClient(url, benchAdminKey).request(method, path, body === undefined ? {} : { body });
  if (res.status < 200 || res.status > 299)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as unknown;
}

export interface CreatedAgent {
  id: string;
  agent_token: string;
}

/**
 * A preset (the stand-in one unless `preset` is given: the built-in preset would be pocketsphinx
 * where it is installed), then a passthrough agent on it with `settings` on top.
 */
export async function createBenchAgent(
  url: string,
  settings: Record<string, unknown>,
  preset: Record<string, unknown> = standInPreset,
): Promise<CreatedAgent> {
  const { id } = (await admin(url, 'POST', '/admin/v1/presets', preset)) as { id: string };
  const agent = { name: 'Bench agent', mode: 'passthrough', ...settings, preset_id: id };
  return (await admin(url, 'POST', '/admin/v1/agents', agent)) as CreatedAgent;
}

export type Grant = SessionGrant & { session_id: string };

/** `POST /sdk/v1/session` for a WebSocket session of the agent. */
export async function openSession(url: string, agentToken: string): Promise<Grant> {
  const res = await fetch(`${url}/sdk/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_token: agentToken, transport: 'websocket' }),
  });
  const body = (await res.json()) as Grant;
  if (res.status !== 201) throw new Error(`POST /sdk/v1/session: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * `n` sessions, `batch` of them opened at once; session i on node i mod the URLs given (its
 * connection URL is that node's).
 */
export async function openSessions(
  urls: string | readonly string[],
  agentToken: string,
  n: number,
  batch: number,
): Promise<(Grant & { node: number })[]> {
  const nodes = typeof urls === 'string' ? [urls] : urls;
  const grants: (Grant & { node: number })[] = [];
  for (let i = 0; i < n; i += batch) {
    const opened = Array.from({ length: Math.min(batch, n - i) }, async (_, j) => {
      const node = (i + j) % nodes.length;
      return { ...(await openSession(nodes[node]!, agentToken)), node };
    });
    grants.push(...(await Promise.all(opened)));
  }
  return grants;
}

export interface StoredMessage {
  role: string;
  status: string;
  text: string;
  timings: Record<string, number> | null;
}

/** A session's conversation as stored: its id and messages. */
export async function conversationOf(
  url: string,
  sessionId: string,
): Promise<{ id: string; messages: StoredMessage[] }> {
  const session = (await admin(url, 'GET', `/admin/v1/sessions/${sessionId}`)) as { conversation_id: string };
  const conversation = (await admin(url, 'GET', `/admin/v1/conversations/${session.conversation_id}`)) as {
    messages: StoredMessage[];
  };
  return { id: session.conversation_id, messages: conversation.messages };
}

/** The timings of the sessions' complete agent messages whose timings hold every one of `keys`. */
export async function timingsOf(
  url: string,
  sessionIds: readonly string[],
  keys: readonly string[] = ['stt_ms'],
): Promise<Record<string, number>[]> {
  const out: Record<string, number>[] = [];
  for (const id of sessionIds) {
    for (const m of (await conversationOf(url, id)).messages) {
      const t = m.timings;
      if (m.role === 'agent' && m.status === 'complete' && t !== null && keys.every((k) => t[k] !== undefined))
        out.push(t);
    }
  }
  return out;
}

/** Parley's share of a turn: end_to_end_ms less endpointing and the providers' and webhook's calls. */
export const shareOf = (x: Record<string, number>) =>
  x['end_to_end_ms']! - (x['endpointing_ms'] ?? 0) - (x['stt_ms'] ?? 0) - (x['response_ms'] ?? 0);
