import type { KnownServerMessage, UnknownServerMessage } from './protocol.js';

/** What the agent is doing, as the client can tell from the protocol. */
export type AgentState = 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended';

/**
 * The state after `message`, or null when it does not change it. A newer server's own state
 * message (`{type: 'agent_state', state}`) is taken as it is.
 */
export function nextAgentState(
  current: AgentState,
  message: KnownServerMessage | UnknownServerMessage,
): AgentState | null {
  if (current === 'ended') return null;
  switch (message.type) {
    case 'ready':
    case 'audio_end':
    case 'interrupted':
      return 'listening';
    case 'transcript':
      return 'thinking';
    case 'audio_start':
      return 'speaking';
    case 'ended':
      return 'ended';
    case 'agent_state': {
      const state = (message as UnknownServerMessage)['state'];
      return typeof state === 'string' && ['listening', 'thinking', 'speaking'].includes(state)
        ? (state as AgentState)
        : null;
    }
    default:
      return null;
  }
}
