import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** Parsed JSON body, or undefined when it is not JSON. */
  json: unknown;
  receivedAt: number;
  /** Set once the reply has been sent (false while pending, and for good when the client went away first). */
  answered: boolean;
}

export interface Reply {
  status?: number;
  body?: unknown;
  /** Wait this long before answering (to test timeouts). */
  delayMs?: number;
  headers?: Record<string, string>;
}

export type Responder = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

/**
 * A real HTTP server standing in for an operator's webhook or event receiver: records every request
 * and answers with whatever the test's responder says.
 */
export class HttpReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Requests whose client went away before the reply was sent (aborted calls). */
  abandoned = 0;
  private waiters: { count: number; resolve: () => void }[] = [];
  private conditions: { test: () => boolean; resolve: () => void }[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    public respond: Responder,
  ) {}

  static async start(respond: Responder = () => ({ status: 200, body: { ok: true } })): Promise<HttpReceiver> {
    const holder: { receiver?: HttpReceiver } = {};
    const server = createServer((req, res) => void holder.receiver!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    const receiver = new HttpReceiver(server, `http://127.0.0.1:${address.port}`, respond);
    holder.receiver = receiver;
    server.on('connection', (s) => {
      receiver.sockets.add(s);
      s.on('close', () => receiver.sockets.delete(s));
    });
    return receiver;
  }

  /** Resolves once `count` requests in total have arrived (rejects after timeoutMs). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    if (this.requests.length >= count) return this.requests;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} requests, got ${this.requests.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
    return this.requests;
  }

  /** Resolves once `test` holds (checked on every request and abandonment). */
  async until(test: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`condition not met; ${this.requests.length} requests, ${this.abandoned} abandoned`)),
        timeoutMs,
      );
      this.conditions.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private check(): void {
    for (const w of this.waiters.filter((w) => this.requests.length >= w.count)) w.resolve();
    this.waiters = this.waiters.filter((w) => this.requests.length < w.count);
    for (const c of this.conditions.filter((c) => c.test())) c.resolve();
    this.conditions = this.conditions.filter((c) => !c.test());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('close', () => {
      if (!res.writableEnded) {
        this.abandoned++;
        this.check();
      }
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      json = undefined;
    }
    const received: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawBody,
      json,
      receivedAt: Date.now(),
      answered: false,
    };
    const index = this.requests.push(received) - 1;
    this.check();
    const reply = await this.respond(received, index);
    if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    const body =
      reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
    res.end(body);
    received.answered = true;
    this.check();
  }
}
