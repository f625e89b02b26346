import { signedPost, type PostFailure, type SignedPostTarget } from '../outbound/signed-post.js';
import { isoNow } from '../schemas/timestamps.js';

/** The body of a tool call: what the operator's tool endpoint receives. */
export interface ToolCallRequest {
  type: 'tool_call';
  session_id: string;
  agent_id: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  timestamp: string;
}

export type ToolFailure =
  | 'unknown_tool'
  | 'bad_arguments'
  /** The POST to the operator's tool endpoint failed (outbound/signed-post.ts). */
  | PostFailure
  /** A built-in tool threw. */
  | 'tool_failed';

export type ToolResult =
  | { ok: true; result: unknown; status: number }
  | { ok: false; failure: ToolFailure; status: number | null; message: string };

/** Largest tool reply Parley reads: it goes into the model's context. */
const maxReplyBytes = 64 * 1024;

/** The operator's tool endpoint; `apiKey` is the agent's webhook key, as for the webhook. */
export type ToolTarget = SignedPostTarget;

/**
 * POSTs one tool call and reads its JSON reply. Never throws: a non-2xx, a reply that is not JSON
 * (or too large), a timeout, a network failure and the caller's abort (barge-in) come back as
 * failures the model is told about.
 */
export async function postToolCall(
  target: ToolTarget,
  call: Omit<ToolCallRequest, 'type' | 'timestamp'>,
  signal: AbortSignal,
): Promise<ToolResult> {
  const body = JSON.stringify({ type: 'tool_call', ...call, timestamp: isoNow() } satisfies ToolCallRequest);
  const reply = await signedPost(target, body, { subject: 'tool', maxResponseBytes: maxReplyBytes, signal });
  return reply.ok ? { ok: true, result: reply.body, status: reply.status } : reply;
}
