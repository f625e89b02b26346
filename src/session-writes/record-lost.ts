import type { Logger } from 'pino';
import type { Store } from '../store/store.js';

/**
 * What a voice session's write leaves once it is given up: a `record_lost` error record on the
 * session's agent (so the operator sees it on the panel), or, when even that cannot be stored,
 * an error log line.
 */
export function recordLost(store: Store, logger: Logger) {
  return async (sessionId: string, what: string, err: unknown): Promise<void> => {
    try {
      const agentId = await store.sessions.get(sessionId).then((s) => s.agent_id);
      await store.errors.record({
        type: 'record_lost',
        message: `a voice session's ${what} record could not be stored: ${err instanceof Error ? err.message : String(err)}`,
        agent_id: agentId,
        session_id: sessionId,
        details: { write: what },
      });
    } catch (recordErr) {
      logger.error({ err: recordErr, session_id: sessionId, write: what }, 'could not write record_lost error record');
    }
  };
}
