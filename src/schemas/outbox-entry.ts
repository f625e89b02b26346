import { isoNow } from './timestamps.js';
import { newId } from '../ids/new-id.js';
import type { StoredAgent } from './agent.js';
import type { AsyncEventType, EventEnvelope } from './event-types.js';

/**
 * One event on its way to an agent's events_url: what the transactional outbox (a Redis list)
 * holds and what the BullMQ delivery job carries. The envelope's id is the idempotency key: the
 * relay queues it as the job id, the receiver sees it as X-Parley-Event-Id.
 */
export interface OutboxEntry {
  envelope: EventEnvelope;
  url: string;
  /** The agent's webhook key, which signs the delivery; null when it has none. */
  key: string | null;
}

/**
 * The entry announcing `type` for the agent, or null when the agent has no events_url: nothing is
 * written then (there is no one to tell; an events_url set later does not replay past events).
 */
export function outboxEntry(
  agent: StoredAgent,
  type: AsyncEventType,
  sessionId: string,
  data: Record<string, unknown>,
  now: number = Date.now(),
): OutboxEntry | null {
  if (agent.events_url === null) return null;
  return {
    envelope: {
      id: newId('event', now),
      type,
      session_id: sessionId,
      agent_id: agent.id,
      timestamp: isoNow(now),
      data,
    },
    url: agent.events_url,
    key: agent.webhook_api_key,
  };
}

/** The JSON the store writes into the outbox, '' for none (the scripts' convention). */
export function entryArg(entry: OutboxEntry | null): string {
  return entry === null ? '' : JSON.stringify(entry);
}
