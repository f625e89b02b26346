import type { Store } from '../store/store.js';

/**
 * Deletes an agent: its token is revoked first (atomically with the record), then what depended on
 * it goes: its documents (chunks and vectors) and its active sessions, ended as `agent_deleted`.
 * Sessions, conversations and error records stay as history.
 */
export async function deleteAgent(store: Store, agentId: string): Promise<void> {
  await store.agents.delete(agentId);
  await store.documents.deleteAll(agentId);
  for (const sessionId of await store.sessions.activeOfAgent(agentId)) {
    await store.sessions.end(sessionId, 'agent_deleted');
  }
}
