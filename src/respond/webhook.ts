import { isoNow } from '../schemas/timestamps.js';
import { PostFailed, signedPost, type PostFailure, type SignedPostTarget } from '../outbound/signed-post.js';
import { parseWebhookAction, type CallAction } from '../actions/call-action.js';
import { StreamFormatError } from './stream-framing.js';
import { isWebhookStreamType, readWebhookStream, webhookStreamTypes } from './webhook-stream.js';

/** SPEC §2 webhook request body, `type` = `transcription_complete`. */
export interface TranscriptionComplete {
  type: 'transcription_complete';
  session_id: string;
  timestamp: string;
  data: { transcript: string; user_id: string | null; context: string | null };
}

export type WebhookTarget = SignedPostTarget;

export type UpstreamFailure = PostFailure;

/** What a webhook call gives, in order: its answer's text (whole, or in pieces as streamed), then its end. */
export type WebhookPart =
  | { type: 'text'; text: string }
  | {
      type: 'end';
      status: number;
      /** From the request to the answer's end. */
      latencyMs: number;
      /** Call control the answer asked for beside its text (null: none). */
      action: CallAction | null;
      /** Why the answer's `action` was ignored (it was malformed); null when it was fine or absent. */
      actionError: string | null;
    };

/** A webhook call that gave no usable answer (or stopped giving one midway), and why. */
export class WebhookFailed extends Error {
  override readonly name = 'WebhookFailed';
  constructor(
    readonly failure: UpstreamFailure,
    readonly status: number | null,
    message: string,
    readonly latencyMs: number,
  ) {
    super(message);
  }
}

export interface WebhookCallOptions {
  /** The caller's abort (barge-in, hang-up): the request is dropped, an `aborted` failure. */
  signal?: AbortSignal | undefined;
  /** A streamed answer's longest silence once it has started (PARLEY_PROVIDER_STALL_MS). */
  stallMs: number;
}

/** Largest webhook reply Parley reads (a JSON answer, or a whole stream); a bigger one is an invalid response. */
const maxReplyBytes = 256 * 1024;

/**
 * One `transcription_complete` request. The webhook answers JSON (`{response, action?}`, given as
 * one text part) or streams its answer (`text/event-stream`, `application/x-ndjson`: README
 * "Streamed answers"), given as its text arrives. Every way it can fail, including the caller's
 * abort, is thrown as a WebhookFailed: after the parts already given, for a stream.
 */
export async function* callWebhook(
  target: WebhookTarget,
  turn: { sessionId: string; transcript: string; userId: string | null; context: string | null },
  options: WebhookCallOptions,
): AsyncIterable<WebhookPart> {
  const payload: TranscriptionComplete = {
    type: 'transcription_complete',
    session_id: turn.sessionId,
    timestamp: isoNow(),
    data: { transcript: turn.transcript, user_id: turn.userId, context: turn.context },
  };
  const body = JSON.stringify(payload);
  const start = performance.now();
  const elapsed = () => Math.round((performance.now() - start) * 100) / 100;
  const reply = await signedPost(target, body, {
    subject: 'webhook',
    maxResponseBytes: maxReplyBytes,
    tooLargeMessage: 'webhook reply is too large',
    signal: options.signal,
    streamTypes: webhookStreamTypes,
    stallMs: options.stallMs,
  });
  if (!reply.ok) throw new WebhookFailed(reply.failure, reply.status, reply.message, elapsed());
  const end = (raw: unknown): WebhookPart => {
    const action = parseWebhookAction(raw);
    return {
      type: 'end',
      status: reply.status,
      latencyMs: elapsed(),
      action: action.ok ? action.action : null,
      actionError: action.ok ? null : action.message,
    };
  };
  if ('body' in reply) {
    const replyBody = reply.body as { response?: unknown; action?: unknown } | null;
    const response = replyBody?.response;
    if (typeof response !== 'string')
      throw new WebhookFailed('invalid_response', reply.status, 'webhook reply has no string `response`', elapsed());
    // A backward-compatible superset of SPEC's `{response}`: an optional `action`, other fields ignored.
    const ended = end(replyBody?.action); // timed now: the reader's time with the text is not the webhook's
    yield { type: 'text', text: response };
    yield ended;
    return;
  }
  if (!isWebhookStreamType(reply.mediaType)) throw new Error(`unexpected streamed media type ${reply.mediaType}`);
  const pieces = readWebhookStream(reply.stream, reply.mediaType, maxReplyBytes);
  try {
    for (;;) {
      const next = await pieces.next();
      if (next.done === true) {
        yield end(next.value.action);
        return;
      }
      yield { type: 'text', text: next.value };
    }
  } catch (err) {
    if (err instanceof PostFailed) throw new WebhookFailed(err.failure, err.status, err.message, elapsed());
    if (err instanceof StreamFormatError)
      throw new WebhookFailed('invalid_response', reply.status, err.message, elapsed());
    throw err;
  } finally {
    // left early (the caller stopped reading): closing the reader drops the request
    await pieces.return({ action: undefined });
  }
}
