import { outboundHeaders } from './outbound-headers.js';
import { PostTimeoutError, postJson } from './post-json.js';
import { PostStallError } from './streamed-body.js';

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
  /**
   * Media types the receiver may stream its reply in (sent in `Accept` after `application/json`):
   * a 2xx of one of them comes back as `stream`, unread. Without them a reply is JSON.
   */
  streamTypes?: readonly string[] | undefined;
  /** A streamed reply's longest silence once it has started. */
  stallMs?: number | undefined;
}

/** A signed POST's JSON reply, parsed, or why there is none. */
export type SignedPostReply =
  | { ok: true; status: number; /** The reply, parsed. */ body: unknown }
  | { ok: false; failure: PostFailure; status: number | null; message: string };

export type SignedPostResult =
  | SignedPostReply
  | {
      ok: true;
      status: number;
      /** One of `streamTypes`. */
      mediaType: string;
      /** The body as it arrives; reading it throws a PostFailed (its deadline, a stall, a cut, the abort). */
      stream: AsyncIterable<Buffer>;
    };

/** A signed POST's failure thrown while its streamed reply is read, with the message the caller records. */
export class PostFailed extends Error {
  override readonly name = 'PostFailed';
  constructor(
    readonly failure: PostFailure,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * POSTs a JSON body to an operator's endpoint (webhook, tool) with Parley's headers and signature,
 * and reads a JSON reply (or hands over a streamed one). Never throws: a non-2xx, a reply that is
 * not JSON or too large, a timeout, a network failure and the caller's abort come back as
 * failures, each with the message the caller records.
 */
export function signedPost(
  target: SignedPostTarget,
  body: string,
  options: SignedPostOptions & { streamTypes?: undefined },
): Promise<SignedPostReply>;
export function signedPost(
  target: SignedPostTarget,
  body: string,
  options: SignedPostOptions,
): Promise<SignedPostResult>;
export async function signedPost(
  target: SignedPostTarget,
  body: string,
  options: SignedPostOptions,
): Promise<SignedPostResult> {
  const { subject, maxResponseBytes, signal, streamTypes } = options;
  const failed = (failure: PostFailure, status: number | null, message: string): SignedPostResult => ({
    ok: false,
    failure,
    status,
    message,
  });
  const accept: Record<string, string> =
    streamTypes === undefined ? {} : { Accept: ['application/json', ...streamTypes].join(', ') };
  let reply;
  try {
    reply = await postJson(target.url, body, outboundHeaders(body, target.apiKey, accept), {
      timeoutMs: target.timeoutMs,
      signal,
      maxResponseBytes,
      streamTypes,
      stallMs: options.stallMs,
    });
  } catch (err) {
    const { failure, message } = describeError(err, subject, 'answer', target, signal);
    return failed(failure, null, message);
  }
  const { status } = reply;
  if ('body' in reply) {
    const stream = rethrown(reply.body, (err) => {
      const { failure, message } = describeError(err, subject, 'stream', target, signal);
      return new PostFailed(failure, status, message);
    });
    return { ok: true, status, mediaType: reply.mediaType, stream };
  }
  if (status < 200 || status > 299) return failed('http_error', status, `${subject} answered HTTP ${status}`);
  if (reply.text === null)
    return failed(
      'invalid_response',
      status,
      options.tooLargeMessage ?? `${subject} reply is over ${maxResponseBytes} bytes`,
    );
  try {
    return { ok: true, status, body: JSON.parse(reply.text) as unknown };
  } catch {
    // A receiver that may stream is told what it sent and what Parley reads.
    const type = reply.mediaType === '' ? 'no Content-Type' : `Content-Type ${reply.mediaType}`;
    const reads = ['application/json', ...(streamTypes ?? [])].join(', ');
    const why = streamTypes === undefined ? '' : ` (${type}; Parley reads ${reads})`;
    return failed('invalid_response', status, `${subject} reply is not JSON${why}`);
  }
}

/**
 * What went wrong with an exchange, while waiting for its `answer` or reading its streamed body
 * (`stream`), as its failure and the message recorded.
 */
function describeError(
  err: unknown,
  subject: string,
  phase: 'answer' | 'stream',
  target: SignedPostTarget,
  signal: AbortSignal | undefined,
): { failure: PostFailure; message: string } {
  if (signal?.aborted) return { failure: 'aborted', message: 'aborted by the session' };
  if (err instanceof PostTimeoutError)
    return phase === 'answer'
      ? { failure: 'timeout', message: `${subject} did not answer within ${target.timeoutMs} ms` }
      : { failure: 'timeout', message: `${subject} stream did not end within ${target.timeoutMs} ms` };
  if (err instanceof PostStallError)
    return { failure: 'timeout', message: `${subject} stream stalled: nothing for ${err.stallMs} ms` };
  const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  if (phase === 'stream') return { failure: 'network_error', message: `${subject} stream failed: ${reason}` };
  return { failure: 'network_error', message: `${subject} request failed: ${reason}` };
}

async function* rethrown<T>(source: AsyncIterable<T>, as: (err: unknown) => unknown): AsyncIterable<T> {
  try {
    yield* source;
  } catch (err) {
    throw as(err);
  }
}
