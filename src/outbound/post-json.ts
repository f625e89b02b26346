import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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

export interface PostReply {
  status: number;
  /** The body as text; null when it was larger than `maxResponseBytes` (the rest is not read). */
  text: string | null;
}

export interface PostOptions {
  /** The whole exchange (connect, send, reply read) must finish within this; else `PostTimeoutError`. */
  timeoutMs: number;
  /** The caller's abort (barge-in, shutdown): the request is dropped and the promise rejects. */
  signal?: AbortSignal | undefined;
  maxResponseBytes: number;
}

/** The request did not finish within its `timeoutMs`. */
export class PostTimeoutError extends Error {
  override readonly name = 'PostTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * POSTs `body` and reads the reply. Rejects on network errors, on the caller's abort and, with a
 * `PostTimeoutError`, when `timeoutMs` passes first. The deadline is a plain timer cleared when
 * the request settles: `AbortSignal.timeout` keeps its timer for the whole span (30 s for a
 * webhook) and a combined signal keeps its sources, on every turn of every session.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostReply> {
  return new Promise<PostReply>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: PostReply | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
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
      settle(timedOut);
      req.destroy(timedOut);
    }, options.timeoutMs);
    req.once('error', settle);
    req.once('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.maxResponseBytes) {
          chunks.push(chunk);
          return;
        }
        settle({ status, text: null });
        res.destroy();
      });
      res.once('error', settle);
      res.once('aborted', () => settle(new Error('the connection closed before the reply was complete')));
      res.once('end', () => settle({ status, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}
