import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * The one HTTP client for requests Parley sends to operators (webhook and event deliveries):
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

/**
 * POSTs `body` and reads the reply. Rejects on network errors and when `signal` aborts (before
 * or while the reply is read), so callers tell timeouts from failures by their own signals.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { signal: AbortSignal; maxResponseBytes: number },
): Promise<PostReply> {
  return new Promise<PostReply>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: PostReply | Error) => {
      if (settled) return;
      settled = true;
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
