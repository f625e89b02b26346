import { outboundHeaders } from './outbound-headers.js';
import { PostTimeoutError, postJson } from './post-json.js';

/** Why a signed POST to an operator's endpoint did not give a usable JSON reply. */
export type PostFailure = 'http_error' | 'timeout' | 'invalid_response' | 'network_error' | 'aborted';

export interface SignedPostTarget {
  url: string;
  /** The agent's webhook key: `Authorization: Bearer` and `X-Parley-Signature` (none when null). */
  apiKey: string | null;
  /** The whole exchange must finish within this. */
  timeoutMs: number;
}

export interface SignedPostOptions {
  /** What messages call the receiver: `webhook`, `tool`. */
  subject: string;
  /** Largest reply read; a bigger one is an invalid response. */
  maxResponseBytes: number;
  /** What an oversized reply is called (default: `<subject> reply is over <maxResponseBytes> bytes`). */
  tooLargeMessage?: string | undefined;
  /** The caller's abort (barge-in): an `aborted` failure. */
  signal?: AbortSignal | undefined;
}

export type SignedPostResult =
  | { ok: true; status: number; /** The reply, parsed. */ body: unknown }
  | { ok: false; failure: PostFailure; status: number | null; message: string };

/**
 * POSTs a JSON body to an operator's endpoint (webhook, tool) with Parley's headers and signature,
 * and reads a JSON reply. Never throws: a non-2xx, a reply that is not JSON or too large, a
 * timeout, a network failure and the caller's abort come back as failures, each with the message
 * the caller records.
 */
export async function signedPost(
  target: SignedPostTarget,
  body: string,
  options: SignedPostOptions,
): Promise<SignedPostResult> {
  const { subject, maxResponseBytes, signal } = options;
  const failed = (failure: PostFailure, status: number | null, message: string): SignedPostResult => ({
    ok: false,
    failure,
    status,
    message,
  });
  let reply;
  try {
    reply = await postJson(target.url, body, outboundHeaders(body, target.apiKey), {
      timeoutMs: target.timeoutMs,
      signal,
      maxResponseBytes,
    });
  } catch (err) {
    if (signal?.aborted) return failed('aborted', null, 'aborted by the session');
    if (err instanceof PostTimeoutError)
      return failed('timeout', null, `${subject} did not answer within ${target.timeoutMs} ms`);
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return failed('network_error', null, `${subject} request failed: ${reason}`);
  }
  const { status, text } = reply;
  if (status < 200 || status > 299) return failed('http_error', status, `${subject} answered HTTP ${status}`);
  if (text === null)
    return failed(
      'invalid_response',
      status,
      options.tooLargeMessage ?? `${subject} reply is over ${maxResponseBytes} bytes`,
    );
  try {
    return { ok: true, status, body: JSON.parse(text) as unknown };
  } catch {
    return failed('invalid_response', status, `${subject} reply is not JSON`);
  }
}
