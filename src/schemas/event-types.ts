/** SPEC §6 asynchronous events, sent to the agent's `events_url`. */
export const asyncEventTypes = [
  'session_start',
  'session_end',
  'llm_response',
  'audio_ready',
  'context_retrieved',
  /** One call of an operator tool (or built-in action) in enhanced mode, written with its `tool` message. */
  'tool_call',
  // Post-call analysis stored on the conversation (src/analysis).
  'analysis_ready',
  /** Keypad digits a caller pressed on a phone call (the same digits reach the LLM as text). */
  'dtmf',
] as const;
export type AsyncEventType = (typeof asyncEventTypes)[number];

/** DESIGN.md's envelope. */
export interface EventEnvelope {
  id: string;
  type: AsyncEventType;
  session_id: string;
  agent_id: string;
  timestamp: string;
  data: Record<string, unknown>;
}
