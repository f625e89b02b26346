import type { Logger } from 'pino';
import type { StoredAgent } from '../schemas/agent.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { Store } from '../store/store.js';
import { endReasonOf, type CallAction } from '../actions/call-action.js';

export interface ActionScope {
  agent: StoredAgent;
  sessionId: string;
  transport: MediaTransport;
  store: Pick<Store, 'errors'>;
  logger: Logger;
}

/**
 * Carries out a voice session's call control once the answer's words have played, and says which
 * reason the session ends with. `end_call` needs nothing more. `transfer` goes through the
 * transport (LiveKit SIP transfer, or the WebSocket `transfer` message); when it fails the failure
 * is recorded (`transfer_failed`), the client is told (`error` `transfer_failed`) and this rejects:
 * the session goes on listening.
 */
export async function performCallAction(
  action: CallAction,
  scope: ActionScope,
): Promise<'agent_hangup' | 'transferred'> {
  if (action.type === 'end_call') return endReasonOf(action);
  const { agent, sessionId, transport, store, logger } = scope;
  try {
    await transport.transfer(action.to);
    logger.info({ session_id: sessionId, to: action.to, transport: transport.kind }, 'caller transferred');
    return endReasonOf(action);
  } catch (err) {
    const message = `transfer to ${action.to ?? '(no destination)'} failed: ${err instanceof Error ? err.message : String(err)}`;
    logger.warn({ err, session_id: sessionId }, message);
    await store.errors
      .record({
        type: 'transfer_failed',
        message,
        agent_id: agent.id,
        session_id: sessionId,
        details: { to: action.to, transport: transport.kind },
      })
      .catch((recordErr: unknown) => logger.error({ err: recordErr }, 'could not write error record'));
    transport.send({ type: 'error', code: 'transfer_failed', message: 'the call could not be transferred' });
    throw err;
  }
}
