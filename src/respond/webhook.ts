import { isoNow } from '../records/timestamps.js';
import { signedPost, type PostFailure, type SignedPostTarget } from '../outbound/signed-post.js';
import { parseWebhookAction, type CallAction } from '../actions/call-action.js';

/** SPEC §2 webhook request body, `type` = `transcription_complete`. */
export interface TranscriptionComplete {
  type: 'transcription_complete';
  session_id: string;
  timestamp: string;
  data: { transcript: string; user_id: string | null; context: string | null };
}

export type WebhookTarget = SignedPostTarget;

export type UpstreamFailure = PostFailure;

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
  const reply = await signedPost(target, body, {
    subject: 'webhook',
    maxResponseBytes: maxReplyBytes,
    tooLargeMessage: 'webhook reply is too large',
    signal,
  });
  const latencyMs = Math.round((performance.now() - start) * 100) / 100;
  if (!reply.ok) return { ...reply, latencyMs };
  const replyBody = reply.body as { response?: unknown; action?: unknown } | null;
  const response = replyBody?.response;
  if (typeof response !== 'string') {
    return {
      ok: false,
      failure: 'invalid_response',
      status: reply.status,
      latencyMs,
      message: 'webhook reply has no string `response`',
    };
  }
  // A backward-compatible superset of SPEC's `{response}`: an optional `action`, other fields ignored.
  const action = parseWebhookAction(replyBody?.action);
  return {
    ok: true,
    response,
    status: reply.status,
    latencyMs,
    action: action.ok ? action.action : null,
    actionError: action.ok ? null : action.message,
  };
}
