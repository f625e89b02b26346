import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One request to the streaming webhook, and what became of its response. */
export interface StreamCall {
  headers: IncomingMessage['headers'];
  rawBody: string;
  json: { session_id: string; data: { transcript: string } };
  receivedAt: number;
  /** When the handler ended the response (performance.now()); null while it is open. */
  endedAt: number | null;
  /** When the client's connection closed before the response ended (Parley aborted it); null if not. */
  abandonedAt: number | null;
  /** Resolves once the response is over, ended or abandoned. */
  closed: Promise<void>;
}

/**
 * How the handler writes its answer: a head, then pieces at its own pace. Writes after the
 * client left are dropped (the handler just stops mattering), like a real server's.
 */
export class StreamWriter {
  constructor(
    private readonly res: ServerResponse,
    private readonly call: StreamCall,
  ) {}

  get gone(): boolean {
    return this.call.abandonedAt !== null;
  }

  head(contentType: string, status = 200): void {
    this.res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-cache' });
    this.res.flushHeaders();
  }

  raw(data: string | Buffer): void {
    if (!this.gone && !this.res.writableEnded) this.res.write(data);
  }

  sse(record: unknown): void {
    this.raw(`data: ${JSON.stringify(record)}\n\n`);
  }

  ndjson(record: unknown): void {
    this.raw(`${JSON.stringify(record)}\n`);
  }

  /**
   * `text` as `{text}` records, one word (with its trailing space) each, `perSecond` a second (a
   * model's pace: 40 tokens/s), in the given framing.
   */
  async words(text: string, format: 'sse' | 'ndjson', perSecond = 40): Promise<void> {
    for (const word of text.match(/\S+\s*/g) ?? []) {
      if (this.gone) return;
      if (format === 'sse') this.sse({ text: word });
      else this.ndjson({ text: word });
      await sleep(1000 / perSecond);
    }
  }

  end(): void {
    if (this.gone || this.res.writableEnded) return;
    this.res.end();
    this.call.endedAt = performance.now();
  }

  /** Kills the connection mid-body (a server that crashed while answering). */
  cut(): void {
    this.res.socket?.destroy();
  }
}

export type StreamHandler = (call: StreamCall, out: StreamWriter) => Promise<void> | void;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A real HTTP server standing in for an operator's webhook that streams its answers: each request
 * is recorded and answered by the test's handler, which writes the response piece by piece.
 */
export class StreamingWebhook {
  readonly calls: StreamCall[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    public handler: StreamHandler,
  ) {}

  static async start(handler: StreamHandler = (_, out) => out.end()): Promise<StreamingWebhook> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    const hook = new StreamingWebhook(server, `http://127.0.0.1:${address.port}`, handler);
    server.on('connection', (s) => {
      hook.sockets.add(s);
      s.on('close', () => hook.sockets.delete(s));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void hook.handle(req, res));
    return hook;
  }

  /** Resolves with the `n`th call (1-based) once it has arrived. */
  async call(n: number, timeoutMs = 10_000): Promise<StreamCall> {
    const started = performance.now();
    while (this.calls.length < n) {
      if (performance.now() - started > timeoutMs)
        throw new Error(`expected ${n} webhook calls, got ${this.calls.length}`);
      await sleep(10);
    }
    return this.calls[n - 1]!;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let closed!: () => void;
    const call: StreamCall = {
      headers: req.headers,
      rawBody,
      json: JSON.parse(rawBody) as StreamCall['json'],
      receivedAt: performance.now(),
      endedAt: null,
      abandonedAt: null,
      closed: new Promise<void>((resolve) => (closed = resolve)),
    };
    res.on('close', () => {
      if (!res.writableFinished && call.endedAt === null) call.abandonedAt = performance.now();
      closed();
    });
    this.calls.push(call);
    const out = new StreamWriter(res, call);
    try {
      await this.handler(call, out);
    } catch (err) {
      // a bug of the test's handler: answer it as one, so the test sees it
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`streaming webhook handler failed: ${String(err)}`);
    }
  }
}
