import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or the text when it is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  /** Whether the server closed the connection after answering. */
  closedByServer: boolean;
}

/**
 * Sends bytes as they are over a plain TCP connection (for requests fetch refuses to make: oversized
 * headers, broken chunking, lying Content-Length) and reads one response. Fails when no complete
 * response arrives within `timeoutMs`; waits up to `closeWithinMs` more for the server to close.
 */
export async function rawRequest(
  url: string,
  request: string | Buffer,
  { timeoutMs = 5_000, closeWithinMs = 0 }: { timeoutMs?: number; closeWithinMs?: number } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  socket.on('error', () => undefined); // a reset after the response shows up as a missing or partial response
  socket.write(request);
  const deadline = Date.now() + timeoutMs;
  let parsed: RawResponse | undefined;
  while (parsed === undefined) {
    parsed = parse(Buffer.concat(chunks));
    if (parsed !== undefined) break;
    if (closed || Date.now() > deadline) {
      socket.destroy();
      throw new Error(
        `no complete response within ${timeoutMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString())}`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  if (closeWithinMs > 0) await Promise.race([ended, new Promise((r) => setTimeout(r, closeWithinMs))]);
  const result = { ...parsed, closedByServer: closed };
  socket.destroy();
  return result;
}

/** One HTTP/1.1 response with a Content-Length, or undefined while it is incomplete. */
function parse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyBytes = data.subarray(end + 4);
  if (bodyBytes.length < length) return undefined;
  const text = bodyBytes.subarray(0, length).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the test's assertions show it */
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body, closedByServer: false };
}
