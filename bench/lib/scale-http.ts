/** bench/scale.ts's admin and SDK calls (its nodes use their own admin key). */
import { scaleAdminKey } from './scale-nodes.js';
import { standInPreset } from './stand-in-preset.js';
import type { SessionGrant } from './voice-load-protocol.js';

export async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': scaleAdminKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A passthrough agent with default voice settings on the stand-in preset; events to `eventsUrl` when given. */
export async function createAgent(url: string, webhookUrl: string, eventsUrl?: string): Promise<string> {
  const preset = (await admin(url, 'POST', '/admin/v1/presets', standInPreset)) as { id: string };
  const agent = (await admin(url, 'POST', '/admin/v1/agents', {
    name: 'Bench scale agent',
    mode: 'passthrough',
    webhook_url: webhookUrl,
    preset_id: preset.id,
    greeting: null,
    ...(eventsUrl === undefined ? {} : { events_url: eventsUrl }),
  })) as { agent_token: string };
  return agent.agent_token;
}

export type Grant = SessionGrant & { session_id: string; node: number };

/** `n` WebSocket sessions, session i opened on node i mod k (its connection URL is that node's). */
export async function openSessions(urls: string[], agentToken: string, n: number): Promise<Grant[]> {
  const grants: Grant[] = [];
  for (let i = 0; i < n; i += 16) {
    const batch = Array.from({ length: Math.min(16, n - i) }, async (_, j) => {
      const node = (i + j) % urls.length;
      const res = await fetch(`${urls[node]}/sdk/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_token: agentToken, transport: 'websocket' }),
      });
      const body = (await res.json()) as SessionGrant & { session_id: string };
      if (res.status !== 201) throw new Error(`POST /sdk/v1/session: ${res.status} ${JSON.stringify(body)}`);
      return { ...body, node };
    });
    grants.push(...(await Promise.all(batch)));
  }
  return grants;
}

interface Stored {
  role: string;
  status: string;
  timings: Record<string, number> | null;
}

/** Parley's timings of every answered audio turn of these sessions. */
export async function timingsOf(url: string, sessionIds: string[]): Promise<Record<string, number>[]> {
  const out: Record<string, number>[] = [];
  for (const id of sessionIds) {
    const session = (await admin(url, 'GET', `/admin/v1/sessions/${id}`)) as { conversation_id: string };
    const conversation = (await admin(url, 'GET', `/admin/v1/conversations/${session.conversation_id}`)) as {
      messages: Stored[];
    };
    for (const m of conversation.messages)
      if (m.role === 'agent' && m.status === 'complete' && m.timings?.['stt_ms'] !== undefined) out.push(m.timings);
  }
  return out;
}

/** Parley's share of a turn: end_to_end_ms less endpointing and the providers' and webhook's calls. */
export const shareOf = (x: Record<string, number>) =>
  x['end_to_end_ms']! - (x['endpointing_ms'] ?? 0) - (x['stt_ms'] ?? 0) - (x['response_ms'] ?? 0);
