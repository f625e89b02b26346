import { api } from '../api/client.js';
import type { Conversation, ConversationWithMessages, Message, Page } from '../api/types.js';

/** One answered turn's latency, as the user waited it: end_to_end_ms for voice, response_ms for chat. */
export interface TurnLatency {
  at: string;
  ms: number;
  kind: 'voice' | 'chat';
}

export function turnLatency(m: Message): TurnLatency | undefined {
  if (m.role !== 'agent' || m.timings === null || m.status === 'failed') return undefined;
  const e2e = m.timings['end_to_end_ms'];
  if (e2e !== undefined) return { at: m.created_at, ms: e2e, kind: 'voice' };
  const response = m.timings['response_ms'];
  return response === undefined ? undefined : { at: m.created_at, ms: response, kind: 'chat' };
}

/** Latencies of the answered turns in the latest `conversations` conversations, oldest first. */
export async function recentLatencies(conversations: number, signal: AbortSignal): Promise<TurnLatency[]> {
  const page = await api<Page<Conversation>>(`/admin/v1/conversations?limit=${conversations}`, { signal });
  const full = await Promise.all(
    page.data.map((c) => api<ConversationWithMessages>(`/admin/v1/conversations/${c.id}?limit=100`, { signal })),
  );
  return full
    .flatMap((c) => c.messages.map(turnLatency))
    .filter((t): t is TurnLatency => t !== undefined)
    .sort((a, b) => a.at.localeCompare(b.at));
}
