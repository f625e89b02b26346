import { NotFoundError } from '../errors/app-errors.js';
import type { Store } from '../store/store.js';
import type { TurnRecorder } from '../session-writes/turn-recorder.js';

export interface DeleteAgentDeps {
  store: Store;
  recorder: Pick<TurnRecorder, 'ended'>;
}

/**
 * Deletes an agent: its token is revoked first (atomically with the record), then what depended on
 * it goes: its documents (chunks and vectors) and its active sessions, ended as `agent_deleted`
 * through the recorder, so each sends its `session_end` to the events_url of the record as it was
 * deleted. Sessions, conversations and error records stay as history.
 */
export async function deleteAgent({ store, recorder }: DeleteAgentDeps, agentId: string): Promise<void> {
  const agent = await store.agents.delete(agentId);
  await store.documents.deleteAll(agentId);
  for (const sessionId of await store.sessions.activeOfAgent(agentId)) {
    const session = await store.sessions.get(sessionId).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null; // an index entry outliving its session: nothing to end
      throw err;
    });
    if (session === null) continue;
    await recorder.ended(agent, sessionId, 'agent_deleted', { error: null, session_type: session.type });
  }
}
