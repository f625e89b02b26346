import { isoNow } from '../records/timestamps.js';
import { outboundHeaders } from '../events/outbound-headers.js';
import { PostTimeoutError, postJson } from '../events/outbound-post.js';
import { parseWebhookAction, type CallAction } from '../actions/call-action.js';

/** SPEC §2 webhook request body, `type` = `transcription_complete`. */
export interface TranscriptionComplete {
  type: 'transcription_complete';
  session_id: string;
  timestamp: string;
  data: { transcript: string; user_id: string | null; context: string | null };
}

export interface WebhookTarget {
  url: string;
  apiKey: string | null;
  timeoutMs: number;
}

export type UpstreamFailure = 'http_error' | 'timeout' | 'invalid_response' | 'network_error' | 'aborted';

export type WebhookResult =
  | {
      ok: true;
      response: string;
      status: number;
      latencyMs: number;
      /** Call control the reply asked for beside `response` (null: none). */
      action: CallAction | null;
      /** Why the reply's `action` was ignored (it was malformed); null when it was fine or absent. */
      actionError: string | null;
    }
  | { ok: false; failure: UpstreamFailure; status: number | null; latencyMs: number; message: string };

/** Largest webhook reply Parley reads; a bigger one is an invalid response. */
const maxReplyBytes = 256 * 1024;

/**
 * One `transcription_complete` request. Never throws: every outcome, including the caller's abort
 * (barge-in), comes back as a result the caller turns into silence or an error record.
 */
export async function callWebhook(
  target: WebhookTarget,
  turn: { sessionId: string; transcript: string; userId: string | null; context: string | null },
  signal?: AbortSignal,
): Promise<WebhookResult> {
  const payload: TranscriptionComplete = {
    type: 'transcription_complete',
    session_id: turn.sessionId,
    timestamp: isoNow(),
    data: { transcript: turn.transcript, user_id: turn.userId, context: turn.context },
  };
  const body = JSON.stringify(payload);
  const start = performance.now();
  const elapsed = () => Math.round((performance.now() - start) * 100) / 100;
  let status: number | null = null;
  try {
    const reply = await postJson(target.url, body, outboundHeaders(body, target.apiKey), {
      timeoutMs: target.timeoutMs,
      signal,
      maxResponseBytes: maxReplyBytes,
    });
    status = reply.status;
    if (status < 200 || status > 299) {
      return {
        ok: false,
        failure: 'http_error',
        status,
        latencyMs: elapsed(),
        message: `webhook answered HTTP ${status}`,
      };
    }
    if (reply.text === null) {
      return {
        ok: false,
        failure: 'invalid_response',
        status,
        latencyMs: elapsed(),
        message: 'webhook reply is too large',
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.text);
    } catch {
      return {
        ok: false,
        failure: 'invalid_response',
        status,
        latencyMs: elapsed(),
        message: 'webhook reply is not JSON',
      };
    }
    const replyBody = parsed as { response?: unknown; action?: unknown } | null;
    const response = replyBody?.response;
    if (typeof response !== 'string') {
      return {
        ok: false,
        failure: 'invalid_response',
        status,
        latencyMs: elapsed(),
        message: 'webhook reply has no string `response`',
      };
    }
    // A backward-compatible superset of SPEC's `{response}`: an optional `action`, other fields ignored.
    const action = parseWebhookAction(replyBody?.action);
    return {
      ok: true,
      response,
      status,
      latencyMs: elapsed(),
      action: action.ok ? action.action : null,
      actionError: action.ok ? null : action.message,
    };
  } catch (err) {
    if (signal?.aborted)
      return { ok: false, failure: 'aborted', status, latencyMs: elapsed(), message: 'aborted by the session' };
    if (err instanceof PostTimeoutError) {
      return {
        ok: false,
        failure: 'timeout',
        status,
        latencyMs: elapsed(),
        message: `webhook did not answer within ${target.timeoutMs} ms`,
      };
    }
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return {
      ok: false,
      failure: 'network_error',
      status,
      latencyMs: elapsed(),
      message: `webhook request failed: ${reason}`,
    };
  }
}
