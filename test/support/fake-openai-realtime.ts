import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { concatSamples } from './pcm.js';
import {
  betaEvents,
  gaEvents,
  midStreamAfter,
  rate,
  refuse,
  sessionObject,
  sessionProblem,
  type FakeRealtimeError,
  type RealtimeConnection,
  type ScriptedUtterance,
} from './fake-openai-realtime-wire.js';

export {
  serverError,
  type FakeRealtimeError,
  type RealtimeConnection,
  type ScriptedUtterance,
} from './fake-openai-realtime-wire.js';

export interface FakeRealtimeOptions {
  /** The key `Authorization: Bearer` must carry (else HTTP 401); null: none needed. Default `sk-test`. */
  apiKey?: string | null;
  /**
   * The utterances, taken in the order connections first append audio (a connection that ends
   * without committing gives its transcript back), from one list or from the list a function
   * picks for the connection (e.g. by its session's prompt). Lists are consumed. Past the end:
   * `heard <ms> ms`.
   */
  script?: ScriptedUtterance[] | ((connection: RealtimeConnection) => ScriptedUtterance[]);
  /** From the commit to `completed`, ms: a random time in [min, max], the deltas spread over it. Default [150, 300]. */
  transcribeMs?: [number, number];
  /** Wait before answering the upgrade (the TLS and round trips of a remote server), ms. */
  handshakeDelayMs?: number;
}

/**
 * A local stand-in for OpenAI's Realtime API in transcription mode, on a real WebSocket server:
 * `GET /v1/realtime?intent=transcription` with `Authorization: Bearer <key>` (401 otherwise, as
 * the real one answers), in the GA form or, with `OpenAI-Beta: realtime=v1`, the beta one. It
 * checks the session update (24 kHz PCM), decodes the base64 PCM16 appends, answers a commit with
 * `input_audio_buffer.committed` (or `input_audio_buffer_commit_empty` under 100 ms of audio) and
 * then the scripted transcript as `delta` events and `completed`, or a scripted fault.
 */
export class FakeOpenAiRealtime {
  readonly connections: RealtimeConnection[] = [];
  /** `ws://127.0.0.1:<port>/v1/realtime`, once started. */
  url = '';
  readonly #server: Server;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #options: FakeRealtimeOptions;
  readonly #sockets = new Set<WebSocket>();
  /** Upgrades held back by `handshakeDelayMs`. */
  readonly #waiting = new Set<{ socket: Duplex; timer: NodeJS.Timeout }>();
  /** The list each connection took its utterance from (it gives a transcript back there). */
  readonly #taken = new WeakMap<RealtimeConnection, ScriptedUtterance[] | undefined>();
  #events = 0;

  private constructor(options: FakeRealtimeOptions) {
    this.#options = options;
    this.#server = createServer((_req, res) => res.writeHead(426).end());
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(pending);
        if (!socket.destroyed) this.#upgrade(req, socket, head);
      }, options.handshakeDelayMs ?? 0);
      const pending = { socket, timer };
      this.#waiting.add(pending);
    });
  }

  static async start(options: FakeRealtimeOptions = {}): Promise<FakeOpenAiRealtime> {
    const fake = new FakeOpenAiRealtime(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    const address = fake.#server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    fake.url = `ws://127.0.0.1:${address.port}/v1/realtime`;
    return fake;
  }

  /** Connections still open. */
  get open(): number {
    return this.#sockets.size;
  }

  async close(): Promise<void> {
    for (const ws of this.#sockets) ws.terminate();
    for (const { socket, timer } of this.#waiting) {
      clearTimeout(timer);
      socket.destroy();
    }
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const key = this.#options.apiKey === undefined ? 'sk-test' : this.#options.apiKey;
    if (url.pathname !== '/v1/realtime') return refuse(socket, 404, 'invalid_request_error', null, 'Not found.');
    if (key !== null && req.headers.authorization !== `Bearer ${key}`) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      return given === ''
        ? refuse(socket, 401, 'invalid_request_error', null, "You didn't provide an API key.")
        : refuse(
            socket,
            401,
            'invalid_request_error',
            'invalid_api_key',
            `Incorrect API key provided: ${masked(given)}.`,
          );
    }
    if (url.searchParams.get('intent') !== 'transcription' && !url.searchParams.has('model'))
      return refuse(
        socket,
        400,
        'invalid_request_error',
        'missing_required_parameter',
        "Missing required parameter: 'model'.",
      );
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#serve(ws, req));
  }

  #serve(ws: WebSocket, req: IncomingMessage): void {
    const c: RealtimeConnection = {
      index: this.connections.length,
      url: req.url ?? '',
      headers: req.headers,
      beta: req.headers['openai-beta'] === 'realtime=v1',
      received: [],
      session: null,
      appends: 0,
      committed: [],
      utterance: null,
      closed: null,
    };
    this.connections.push(c);
    this.#sockets.add(ws);
    let buffer: Int16Array[] = [];
    let items = 0;
    let closing = false;
    let faulted = false;
    /** Fires the utterance's mid-stream fault (once). */
    const faultNow = (): void => {
      const u = c.utterance;
      if (faulted || u === null || typeof u === 'string') return;
      faulted = true;
      if (u.fault === 'error') fail(u.error);
      else if (u.fault === 'close') {
        closing = true;
        ws.close(u.code, u.reason ?? '');
      }
    };
    const send = (event: Record<string, unknown>): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: `event_${++this.#events}`, ...event }));
    };
    const fail = (error: FakeRealtimeError & { param?: string | null }): void =>
      send({ type: 'error', error: { param: null, event_id: null, ...error } });
    const prefix = c.beta ? 'transcription_session' : 'session';
    send({ type: `${prefix}.created`, session: sessionObject(c, null) });

    ws.on('message', (data) => {
      let event: { type?: unknown; session?: unknown; audio?: unknown };
      try {
        event = JSON.parse(String(data)) as typeof event;
      } catch {
        return fail({ type: 'invalid_request_error', code: 'invalid_json', message: 'The message is not valid JSON.' });
      }
      const type = String(event.type);
      c.received.push(type);
      const known = c.beta ? betaEvents : gaEvents;
      if (!known.includes(type))
        return fail({
          type: 'invalid_request_error',
          code: 'invalid_value',
          message: `Invalid value: '${type}'. Supported values are: ${known.map((k) => `'${k}'`).join(', ')}.`,
          param: 'type',
        });
      if (type.endsWith('.update')) {
        const problem = sessionProblem(c, event.session);
        if (problem !== null) return fail({ type: 'invalid_request_error', code: 'invalid_value', message: problem });
        c.session = event.session as Record<string, unknown>;
        return send({ type: `${prefix}.updated`, session: sessionObject(c, c.session) });
      }
      if (type === 'input_audio_buffer.append') {
        const bytes = Buffer.from(typeof event.audio === 'string' ? event.audio : '', 'base64');
        const samples = new Int16Array(bytes.byteLength >> 1);
        Buffer.from(samples.buffer).set(bytes.subarray(0, samples.byteLength));
        buffer.push(samples);
        c.appends++;
        if (!this.#taken.has(c)) {
          const list = typeof this.#options.script === 'function' ? this.#options.script(c) : this.#options.script;
          this.#taken.set(c, list);
          c.utterance = list?.shift() ?? null;
        }
        if (c.appends === midStreamAfter(c.utterance)) faultNow();
        return;
      }
      if (type === 'input_audio_buffer.clear') {
        buffer = [];
        return send({ type: 'input_audio_buffer.cleared' });
      }
      // input_audio_buffer.commit: a mid-stream fault that has not fired yet (fewer appends) fires now
      if (midStreamAfter(c.utterance) !== null && !faulted) return faultNow();
      const audio = concatSamples(buffer);
      buffer = [];
      if (audio.length < rate / 10)
        return fail({
          type: 'invalid_request_error',
          code: 'input_audio_buffer_commit_empty',
          message: `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${((audio.length * 1000) / rate).toFixed(2)}ms of audio.`,
        });
      c.committed.push(audio);
      const itemId = `item_${c.index}_${++items}`;
      send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: itemId });
      if (!c.beta)
        send({ type: 'conversation.item.added', item: { id: itemId, type: 'message', role: 'user', content: [] } });
      this.#answer(c.utterance, audio, itemId, send);
    });
    ws.on('close', (code) => {
      this.#sockets.delete(ws);
      c.closed = { code, byClient: !closing };
      // a connection that ends without committing (a dismissed onset) did not use its transcript
      if (typeof c.utterance === 'string' && c.committed.length === 0) this.#taken.get(c)?.unshift(c.utterance);
    });
  }

  #answer(
    utterance: ScriptedUtterance | null,
    audio: Int16Array,
    itemId: string,
    send: (event: Record<string, unknown>) => void,
  ): void {
    const [min, max] = this.#options.transcribeMs ?? [150, 300];
    const totalMs = min + Math.random() * (max - min);
    const item = { item_id: itemId, content_index: 0 };
    if (utterance !== null && typeof utterance !== 'string') {
      if (utterance.fault === 'failed')
        setTimeout(
          () => send({ type: 'conversation.item.input_audio_transcription.failed', ...item, error: utterance.error }),
          totalMs,
        );
      return; // a stall answers nothing more; mid-stream faults have fired already
    }
    const text = utterance ?? `heard ${Math.round(audio.length / 24)} ms`;
    const words = text === '' ? [] : text.split(/(?<= )/);
    words.forEach((word, i) =>
      setTimeout(
        () => send({ type: 'conversation.item.input_audio_transcription.delta', ...item, delta: word }),
        (totalMs * i) / words.length,
      ),
    );
    const usage = { type: 'duration', seconds: Math.ceil(audio.length / rate) };
    setTimeout(
      () => send({ type: 'conversation.item.input_audio_transcription.completed', ...item, transcript: text, usage }),
      totalMs,
    );
  }
}

/** A key as the API quotes it back: its first 3 and last 4 characters, stars between. */
function masked(key: string): string {
  return key.length <= 7 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}
