import type { CallAction } from '../actions/call-action.js';
import type { Session } from '../schemas/session.js';

/** One user turn to answer (chat or voice). */
export interface Turn {
  sessionId: string;
  conversationId: string;
  transcript: string;
  userId: string | null;
  /** RAG context; null when RAG is off for the agent (SPEC §4.5 rule 3). */
  context: string | null;
  /** The session the turn belongs to (tool calls are recorded in its conversation). */
  session: Session;
  channel: 'chat' | 'voice';
  /** The user turn's number (1, 2, …) when the caller knows it, carried by `tool_call` events. */
  turn: number | null;
  /**
   * Told when the answer asks for call control (the webhook reply's `action`, or a built-in
   * action the LLM called): the caller carries it out after the answer (src/actions).
   */
  onAction?: ((action: CallAction) => void) | undefined;
}

/** What answering a turn gave: the whole text, or why there is none (the failure already recorded). */
export type Answer =
  | { ok: true; text: string; source: 'webhook' | 'llm'; latencyMs: number }
  | {
      ok: false;
      aborted: boolean;
      errorId: string | null;
      message: string;
      latencyMs: number;
      /** The error record's type (`aborted` when none was written); `llm_not_configured`: `message` says every fix. */
      reason: string;
    };
