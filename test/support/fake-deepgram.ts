import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  defaultFakeTimings,
  FakeListenStream,
  type FakeFault,
  type FakeStreamHost,
  type FakeTimings,
} from './fake-deepgram-stream.js';

export type { FakeFault } from './fake-deepgram-stream.js';

export interface FakeDeepgramOptions extends Partial<FakeTimings> {
  /** The key it accepts (`Authorization: Token <key>`, or the `token, <key>` subprotocol). */
  apiKey?: string;
  /** What is said, one line per utterance in the order they are finalized. */
  script?: string[];
}

/** One handshake the fake refused. */
export interface Refusal {
  status: number;
  url: string;
  authorization: string | undefined;
}

const encodings = new Set([
  'linear16',
  'linear32',
  'flac',
  'alaw',
  'mulaw',
  'amr-nb',
  'amr-wb',
  'opus',
  'ogg-opus',
  'speex',
  'g729',
]);
const models = /^(nova-3(-general|-medical)?|nova-2(-[a-z]+)?|nova(-[a-z]+)?|enhanced(-[a-z]+)?|base(-[a-z]+)?)$/;

/**
 * A local stand-in for Deepgram's live API: `GET /v1/listen` upgraded to a WebSocket, speaking
 * its protocol (fake-deepgram-stream.ts) and failing as it fails. The handshake checks the key
 * like Deepgram (401 `INVALID_AUTH` otherwise) and the parameters (400 for an unknown model or
 * encoding, linear16 without `sample_rate`, `keywords` with Nova-3), answering refusals with
 * `dg-request-id`, `dg-error` and a JSON body `{err_code, err_msg, request_id}`. Transcripts
 * come from a script: each utterance finalized says the next line. Faults are queued with `fail`.
 */
export class FakeDeepgram {
  apiKey: string;
  script: string[];
  readonly streams: FakeListenStream[] = [];
  readonly refusals: Refusal[] = [];
  readonly timings: FakeTimings;
  readonly #faults: FakeFault[] = [];
  #line = 0;
  readonly #server: Server;
  readonly #wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('token') ? 'token' : false),
  });

  private constructor(options: FakeDeepgramOptions) {
    this.apiKey = options.apiKey ?? 'dg-test-key';
    this.script = options.script ?? [];
    this.timings = { ...defaultFakeTimings, ...options };
    this.#server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ err_code: 'NOT_FOUND', err_msg: 'Not found.' }));
    });
    this.#server.on('upgrade', (req, socket, head) => this.#upgrade(req, socket, head));
  }

  static async start(options: FakeDeepgramOptions = {}): Promise<FakeDeepgram> {
    const fake = new FakeDeepgram(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The address Parley is given (PARLEY_DEEPGRAM_URL). */
  get url(): string {
    return `ws://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Streams whose socket is still open. */
  get open(): FakeListenStream[] {
    return this.streams.filter((s) => !s.closed);
  }

  /** The script lines said so far (utterances finalized). */
  get said(): number {
    return this.#line;
  }

  /** Forgets the streams, refusals, faults and script lines said; `script` is the new script. */
  reset(script: string[] = []): void {
    this.script = script;
    this.#line = 0;
    this.streams.length = 0;
    this.refusals.length = 0;
    this.#faults.length = 0;
  }

  /** Queues a fault for the next stream it applies to. */
  fail(fault: FakeFault): void {
    this.#faults.push(fault);
  }

  async close(): Promise<void> {
    for (const stream of this.streams) stream.ws.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  readonly #host: FakeStreamHost = {
    line: (take) => {
      const line = this.script[this.#line] ?? '';
      if (take) this.#line++;
      return line;
    },
    fault: (kinds, take) => {
      const index = this.#faults.findIndex((f) => kinds.includes(f.kind));
      if (index < 0) return undefined;
      return take ? this.#faults.splice(index, 1)[0] : this.#faults[index];
    },
  };

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const authorization = req.headers.authorization;
    const refuse = (status: number, code: string, message: string, header = true) => {
      this.refusals.push({ status, url: url.toString(), authorization });
      answerRefusal(socket, status, code, message, header);
    };
    if (url.pathname !== '/v1/listen') return refuse(404, 'NOT_FOUND', 'Not found.');
    if (keyOf(req) !== this.apiKey) return refuse(401, 'INVALID_AUTH', 'Invalid credentials.');
    const problem = paramProblem(url.searchParams);
    if (problem !== null) return refuse(400, 'Bad Request', problem);
    const fault = this.#host.fault(['refuse'], true);
    if (fault?.kind === 'refuse') return refuse(fault.status, 'FAULT', fault.message, fault.header ?? true);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.streams.push(new FakeListenStream(ws, url.searchParams, this.#host, this.timings));
    });
  }
}

/** The key of a handshake: `Authorization: Token <key>`, or the subprotocols `token, <key>`. */
function keyOf(req: IncomingMessage): string | undefined {
  const header = /^Token (\S+)$/.exec(req.headers.authorization ?? '');
  if (header !== null) return header[1];
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return protocols[0] === 'token' ? protocols[1] : undefined;
}

function paramProblem(params: URLSearchParams): string | null {
  const model = params.get('model') ?? 'base';
  if (!models.test(model)) return 'No such model/language/tier combination found.';
  const encoding = params.get('encoding');
  if (encoding !== null && !encodings.has(encoding)) return `Unsupported encoding: ${encoding}.`;
  const rate = params.get('sample_rate');
  if (encoding !== null && rate === null) return 'sample_rate is required when encoding is set.';
  if (rate !== null && !/^\d+$/.test(rate)) return `Invalid sample_rate: ${rate}.`;
  if (params.has('keywords') && model.startsWith('nova-3'))
    return 'Keywords are not supported with Nova-3 models; use keyterm.';
  return null;
}

/** An HTTP error answer to an upgrade request, as Deepgram gives it, then the socket closed. */
function answerRefusal(socket: Duplex, status: number, code: string, message: string, header: boolean): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ err_code: code, err_msg: message, request_id: requestId });
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    `dg-request-id: ${requestId}`,
    ...(header ? [`dg-error: ${message}`] : []),
    'connection: close',
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
