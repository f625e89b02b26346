import { outboundHeaders } from '../events/outbound-headers.js';
import { PostTimeoutError, postJson } from '../events/outbound-post.js';
import { isoNow } from '../records/timestamps.js';

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
  | 'timeout'
  | 'http_error'
  | 'invalid_response'
  | 'network_error'
  | 'aborted'
  /** A built-in tool threw. */
  | 'tool_failed';

export type ToolResult =
  | { ok: true; result: unknown; status: number }
  | { ok: false; failure: ToolFailure; status: number | null; message: string };

/** Largest tool reply Parley reads: it goes into the model's context. */
const maxReplyBytes = 64 * 1024;

export interface ToolTarget {
  url: string;
  /** The agent's webhook key: Bearer and X-Parley-Signature, as for the webhook. */
  apiKey: string | null;
  timeoutMs: number;
}

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
  let status: number | null = null;
  try {
    const reply = await postJson(target.url, body, outboundHeaders(body, target.apiKey), {
      timeoutMs: target.timeoutMs,
      signal,
      maxResponseBytes: maxReplyBytes,
    });
    status = reply.status;
    if (status < 200 || status > 299) return failed('http_error', status, `tool answered HTTP ${status}`);
    if (reply.text === null) return failed('invalid_response', status, `tool reply is over ${maxReplyBytes} bytes`);
    try {
      return { ok: true, result: JSON.parse(reply.text) as unknown, status };
    } catch {
      return failed('invalid_response', status, 'tool reply is not JSON');
    }
  } catch (err) {
    if (signal.aborted) return failed('aborted', status, 'aborted by the session');
    if (err instanceof PostTimeoutError)
      return failed('timeout', status, `tool did not answer within ${target.timeoutMs} ms`);
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return failed('network_error', status, `tool request failed: ${reason}`);
  }
}

function failed(failure: ToolFailure, status: number | null, message: string): ToolResult {
  return { ok: false, failure, status, message };
}
