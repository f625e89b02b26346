import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { streamedBody, type StreamedBody } from './streamed-body.js';

/**
 * The one HTTP client for requests Parley sends to operators (webhook, tool calls, event deliveries):
 * node:http with keep-alive agents. It costs a fraction of `fetch` per request (no WHATWG
 * Request/Response/stream objects), which matters on the chat path where the webhook call is the
 * only work Parley does not control. Redirects are not followed: a 3xx is an answer like any other.
 */

const agentOptions = {
  keepAlive: true,
  keepAliveMsecs: 1_000,
  maxSockets: 256,
  maxFreeSockets: 64,
  scheduling: 'lifo' as const,
};
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/** A reply read whole. */
export interface WholeReply {
  status: number;
  /** Its `Content-Type`'s media type (lower case, no parameters; '' when none). */
  mediaType: string;
  /** The body as text; null when it was larger than `maxResponseBytes` (the rest is not read). */
  text: string | null;
}

export type PostReply =
  | WholeReply
  | {
      status: number;
      /** A 2xx of one of `streamTypes`: its media type (lower case, no parameters). */
      mediaType: string;
      /** Its body as it arrives, under the exchange's deadline (see StreamedBody). */
      body: StreamedBody;
    };

export interface PostOptions {
  /** The whole exchange (connect, send, reply read) must finish within this; else `PostTimeoutError`. */
  timeoutMs: number;
  /** The caller's abort (barge-in, shutdown): the request is dropped and the promise rejects. */
  signal?: AbortSignal | undefined;
  maxResponseBytes: number;
  /**
   * Media types read as a stream: a 2xx of one of them resolves at its head, its body read by the
   * caller chunk by chunk, each within `stallMs` of the one before. Others are read whole.
   */
  streamTypes?: readonly string[] | undefined;
  /** A streamed body's longest silence once it has started (`PostStallError` past it). */
  stallMs?: number | undefined;
}

/** The request did not finish within its `timeoutMs`. */
export class PostTimeoutError extends Error {
  override readonly name = 'PostTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The media type of a `Content-Type` header: lower case, parameters (`; charset=…`) left out. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * POSTs `body` and reads the reply. Rejects on network errors, on the caller's abort and, with a
 * `PostTimeoutError`, when `timeoutMs` passes first. The deadline is a plain timer cleared when
 * the request settles: `AbortSignal.timeout` keeps its timer for the whole span (30 s for a
 * webhook) and a combined signal keeps its sources, on every turn of every session. A streamed
 * reply (`streamTypes`) keeps the timer until its body ends: the deadline covers the whole stream.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions & { streamTypes?: undefined },
): Promise<WholeReply>;
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostReply>;
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostReply> {
  return new Promise<PostReply>((resolve, reject) => {
    let settled = false;
    /** Why the exchange was cut by its deadline: what a streamed body then fails with. */
    let expired: PostTimeoutError | undefined;
    const settle = (outcome: PostReply | Error) => {
      if (settled) return;
      settled = true;
      if (!('body' in outcome)) clearTimeout(deadline);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
      signal: options.signal,
    });
    const deadline = setTimeout(() => {
      const timedOut = new PostTimeoutError(options.timeoutMs);
      expired = timedOut;
      settle(timedOut);
      req.destroy(timedOut);
    }, options.timeoutMs);
    req.on('error', settle); // settle is idempotent: a late error (a deadline mid-stream) is handled, not thrown
    req.once('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const mediaType = mediaTypeOf(res.headers['content-type']);
      if (status >= 200 && status <= 299 && options.streamTypes?.includes(mediaType) === true) {
        const body = streamedBody(res, req, {
          stallMs: options.stallMs ?? options.timeoutMs,
          expired: () => expired,
          done: () => clearTimeout(deadline),
        });
        settle({ status, mediaType, body });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.maxResponseBytes) {
          chunks.push(chunk);
          return;
        }
        settle({ status, mediaType, text: null });
        res.destroy();
      });
      res.once('error', settle);
      res.once('aborted', () => settle(new Error('the connection closed before the reply was complete')));
      res.once('end', () => settle({ status, mediaType, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}
