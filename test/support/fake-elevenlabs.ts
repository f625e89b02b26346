import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/**
 * ElevenLabs' TTS as a real WebSocket server speaking its stream-input protocol (see
 * src/providers/elevenlabs/elevenlabs-protocol.ts): `GET /v1/text-to-speech/{voice_id}/stream-input`
 * with `model_id`, `output_format=pcm_<rate>` and `inactivity_timeout`; the key in the `xi-api-key`
 * header or the first message; text buffered until the chunk schedule (120, 160, 250, 290
 * characters), a `flush: true` or the end (`{"text":""}`) asks for audio; audio as base64 PCM16 in
 * several messages per generation, each with its `alignment` and `normalizedAlignment`; then
 * `{"isFinal": true}` and a close (1000). A wrong key closes 1008 `Invalid API key`; no text for
 * `inactivity_timeout` s closes 1008 with ElevenLabs' message (cut to a close reason's 123 bytes,
 * as theirs is). `GET /v1/user` answers 200 with the key, else 401 as the REST API does.
 *
 * The audio is a real 440 Hz tone, `msPerChar` per character, each generation's first message
 * `firstByteDelayMs` after it was asked for. A connection's plan can make it fail mid-stream
 * (close 1011), stall (send nothing more, stay open) or run out of quota (an error message, 1008).
 */

export interface ConnectionPlan {
  /** Close 1011 `We are sorry, something went wrong.` after sending this many audio messages. */
  failAfterAudio?: number;
  /** Send no more after this many audio messages, and keep the connection open. */
  stallAfterAudio?: number;
  /** Answer the first text with the quota error (a message, then a close 1008). */
  quotaExceeded?: boolean;
}

export interface FakeElevenLabsOptions {
  /** The one key accepted (default `xi-test-key`). */
  apiKey?: string;
  /** From a generation's trigger (flush, end, chunk schedule) to its first audio message (default 150 ms). */
  firstByteDelayMs?: number;
  /** Audio per character of text (default 10 ms). */
  msPerChar?: number;
  /** Characters per audio message (default 12): a generation comes in several messages. */
  charsPerMessage?: number;
  /** How connection `index` (0 = first) behaves. */
  plan?: (index: number) => ConnectionPlan;
}

/** A client message as received, with its arrival time. */
export interface ReceivedText {
  at: number;
  message: Record<string, unknown>;
}

/** One stream-input connection as the fake saw it. */
export interface StreamConnection {
  index: number;
  voiceId: string;
  query: Record<string, string>;
  headerKey: string | undefined;
  received: ReceivedText[];
  /** When each generation was asked for (flush, end, chunk schedule) and its text. */
  generations: { at: number; text: string }[];
  /** Times of the audio messages sent. */
  audioAt: number[];
  /** Who closed it and how (null while open). */
  closed: { by: 'client' | 'server'; code: number; reason: string; at: number } | null;
}

const schedule = [120, 160, 250, 290];
const endOfInputHint =
  'Have not received a new text input within the timeout of {s} seconds. Streaming input terminated. Please make sure to either feed the input in the timely manner, or to send the end of input text (empty string "") when done.';

export class FakeElevenLabs {
  readonly connections: StreamConnection[] = [];
  readonly userCalls: { key: string | undefined }[] = [];
  /** `ws://127.0.0.1:<port>`: PARLEY_ELEVENLABS_URL. */
  url = '';
  readonly apiKey: string;
  private readonly waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    private readonly options: FakeElevenLabsOptions,
  ) {
    this.apiKey = options.apiKey ?? 'xi-test-key';
  }

  static async start(options: FakeElevenLabsOptions = {}): Promise<FakeElevenLabs> {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    const fake = new FakeElevenLabs(server, wss, options);
    server.on('request', (req, res) => {
      const key = req.headers['xi-api-key'];
      if (req.method === 'GET' && req.url === '/v1/user') {
        fake.userCalls.push({ key: typeof key === 'string' ? key : undefined });
        const ok = key === fake.apiKey;
        res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify(
            ok
              ? { subscription: { tier: 'free', character_count: 0, character_limit: 10_000 } }
              : { detail: { status: 'invalid_api_key', message: 'Invalid API key' } },
          ),
        );
        return;
      }
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const match = /^\/v1\/text-to-speech\/([^/]+)\/stream-input$/.exec(url.pathname);
      if (match === null) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => fake.serve(ws, req, decodeURIComponent(match[1]!), url));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    fake.url = `ws://127.0.0.1:${address.port}`;
    return fake;
  }

  /** Waits (bounded) until `test` holds; checked whenever a connection changes. */
  async until(test: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake ElevenLabs: timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private changed(): void {
    for (const w of [...this.waiters]) {
      if (!w.test()) continue;
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
  }

  private serve(ws: WebSocket, req: IncomingMessage, voiceId: string, url: URL): void {
    const header = req.headers['xi-api-key'];
    const conn: StreamConnection = {
      index: this.connections.length,
      voiceId,
      query: Object.fromEntries(url.searchParams),
      headerKey: typeof header === 'string' ? header : undefined,
      received: [],
      generations: [],
      audioAt: [],
      closed: null,
    };
    this.connections.push(conn);
    const plan = this.options.plan?.(conn.index) ?? {};
    const rate = Number(/^pcm_(\d+)$/.exec(conn.query['output_format'] ?? 'pcm_16000')?.[1] ?? NaN);
    const inactivityS = Number(conn.query['inactivity_timeout'] ?? 20);
    let idle: NodeJS.Timeout | undefined;
    const closeBy = (code: number, reason: string) => {
      if (conn.closed !== null) return;
      conn.closed = { by: 'server', code, reason, at: performance.now() };
      ws.close(code, truncateReason(reason));
      this.changed();
    };
    ws.on('close', (code, reason) => {
      clearTimeout(idle);
      if (conn.closed === null) conn.closed = { by: 'client', code, reason: reason.toString(), at: performance.now() };
      this.changed();
    });
    if (!Number.isFinite(rate)) return closeBy(1008, `Invalid output format: ${conn.query['output_format'] ?? ''}`);
    if (conn.headerKey !== undefined && conn.headerKey !== this.apiKey) return closeBy(1008, 'Invalid API key');

    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => closeBy(1008, endOfInputHint.replace('{s}', String(inactivityS))), inactivityS * 1000);
    };
    touch();
    let buffer = '';
    let step = 0;
    let ended = false;
    /** Generations run one after another: audio in the order its text came. */
    let queue: Promise<void> = Promise.resolve();
    const generate = (text: string) => {
      conn.generations.push({ at: performance.now(), text });
      this.changed();
      queue = queue.then(() => this.speak(ws, conn, text, rate, plan, closeBy));
    };
    ws.on('message', (data: RawData) => {
      if (conn.closed !== null) return;
      touch();
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return closeBy(1008, 'Invalid message: not JSON');
      }
      conn.received.push({ at: performance.now(), message });
      this.changed();
      if (conn.received.length === 1 && conn.headerKey === undefined) {
        const key = message['xi-api-key'] ?? message['xi_api_key'];
        if (key !== this.apiKey) return closeBy(1008, 'Invalid API key');
      }
      if (typeof message['text'] !== 'string') return closeBy(1008, 'Invalid message: text is required');
      if (plan.quotaExceeded === true && message['text'].trim() !== '') {
        ws.send(
          JSON.stringify({
            message: 'This request exceeds your quota of 10000. You have 0 credits remaining.',
            error: 'quota_exceeded',
            code: 1008,
          }),
        );
        return closeBy(1008, 'This request exceeds your quota of 10000.');
      }
      if (message['text'] === '') {
        ended = true;
        clearTimeout(idle);
        if (buffer.trim() !== '') generate(buffer);
        buffer = '';
        queue = queue.then(() => {
          if (conn.closed !== null) return;
          ws.send(JSON.stringify({ audio: null, isFinal: true, normalizedAlignment: null, alignment: null }));
          closeBy(1000, '');
        });
        return;
      }
      if (ended || conn.received.length === 1) return;
      buffer += message['text'];
      const due = schedule[Math.min(step, schedule.length - 1)]!;
      if (message['flush'] === true || message['try_trigger_generation'] === true || buffer.length >= due) {
        if (buffer.trim() === '') return;
        step++;
        generate(buffer);
        buffer = '';
      }
    });
  }

  /** One generation's audio, after the first-byte delay, in several messages with their alignment. */
  private async speak(
    ws: WebSocket,
    conn: StreamConnection,
    text: string,
    rate: number,
    plan: ConnectionPlan,
    closeBy: (code: number, reason: string) => void,
  ): Promise<void> {
    await new Promise((r) => setTimeout(r, this.options.firstByteDelayMs ?? 150));
    const msPerChar = this.options.msPerChar ?? 10;
    const perMessage = this.options.charsPerMessage ?? 12;
    const chars = [...text];
    for (let at = 0; at < chars.length; at += perMessage) {
      if (conn.closed !== null) return;
      const sent = conn.audioAt.length;
      if (plan.stallAfterAudio !== undefined && sent >= plan.stallAfterAudio) return new Promise<void>(() => {});
      if (plan.failAfterAudio !== undefined && sent >= plan.failAfterAudio)
        return closeBy(1011, 'We are sorry, something went wrong. You are not charged for this request.');
      const part = chars.slice(at, at + perMessage);
      const alignment = {
        chars: part,
        charStartTimesMs: part.map((_, i) => i * msPerChar),
        charDurationsMs: part.map(() => msPerChar),
      };
      const samples = tone((part.length * msPerChar * rate) / 1000, rate);
      ws.send(
        JSON.stringify({
          audio: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64'),
          isFinal: null,
          normalizedAlignment: { ...alignment, chars: part.map((c) => c.toLowerCase()) },
          alignment,
        }),
      );
      conn.audioAt.push(performance.now());
      this.changed();
      await new Promise((r) => setImmediate(r));
    }
  }
}

/** `n` samples of a 440 Hz tone at `rate`. */
function tone(n: number, rate: number): Int16Array {
  const out = new Int16Array(Math.round(n));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return out;
}

/** A close reason is at most 123 bytes (RFC 6455); ElevenLabs' long ones arrive cut. */
function truncateReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  return bytes.length <= 123 ? reason : bytes.subarray(0, 123).toString('utf8');
}
