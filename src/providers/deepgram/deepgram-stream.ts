import type { IncomingMessage } from 'node:http';
import { WebSocket, type RawData } from 'ws';
import { ProviderTimeout } from '../call-deadline.js';
import { ProviderError } from '../provider-error.js';
import type { SttStream } from '../stt.js';
import { FrameError, HeardSoFar, parseFrame } from './listen-frames.js';

const label = 'deepgram';

/** A refused handshake's body is read up to this (Deepgram's is a short JSON error). */
const maxRefusalBytes = 2048;

interface Pending {
  resolve: (text: string) => void;
  reject: (err: unknown) => void;
}

/**
 * One utterance on one `/v1/listen` WebSocket, opened at the utterance's onset. Audio written
 * before the handshake completes is queued (copies) and sent on open; after that each write is
 * one binary message. `finish` sends `Finalize` (flush: the final result answers it with
 * `from_finalize`) and `CloseStream` (Deepgram then sends what is left, `Metadata`, and closes
 * 1000), and resolves with the final words at whichever comes first. `cancel` closes the socket
 * (1000) and drops the utterance.
 *
 * Every failure is a ProviderError that `finish` rejects with, failing the turn: a refused
 * handshake (HTTP status and Deepgram's `dg-error`), a socket that closes before the end
 * (Deepgram's close code and reason, e.g. 1011 `NET-0001`), a frame that is not Deepgram's, a
 * handshake or final transcript later than `stallMs`. The stream never gives its audio back for
 * a whole transcription (`healthy` stays true): remote calls are not retried within a turn.
 */
export class DeepgramStream implements SttStream {
  readonly #ws: WebSocket;
  readonly #stallMs: number;
  readonly #heard = new HeardSoFar();
  #queued: Buffer[] = [];
  #failure: ProviderError | undefined;
  /** finish() or cancel() was called: no more audio. */
  #ended = false;
  /** cancel() was called, or finish() settled: nobody waits for the socket any more. */
  #done = false;
  #pending: Pending | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(url: URL, headers: Record<string, string>, stallMs: number) {
    this.#stallMs = stallMs;
    this.#ws = new WebSocket(url, { headers, handshakeTimeout: stallMs, perMessageDeflate: false });
    this.#ws.on('unexpected-response', (_req, res) => this.#refused(res));
    this.#ws.on('open', () => this.#opened());
    this.#ws.on('message', (data, isBinary) => this.#received(data, isBinary));
    this.#ws.on('error', (err) => this.#fail(new ProviderError(label, `connection failed: ${err.message}`)));
    this.#ws.on('close', (code, reason) => this.#closed(code, reason.toString()));
  }

  get partial(): string {
    return this.#heard.partial;
  }

  get healthy(): boolean {
    return true;
  }

  write(samples: Int16Array): void {
    if (this.#ended || this.#failure !== undefined || samples.length === 0) return;
    // a copy: the caller's view is read now, not kept (ws may hold a buffer until it is written)
    const bytes = Buffer.copyBytesFrom(samples);
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(bytes);
    else if (this.#ws.readyState === WebSocket.CONNECTING) this.#queued.push(bytes);
  }

  finish(): Promise<string> {
    if (this.#ended) return Promise.reject(new Error('deepgram: the stream has ended'));
    this.#ended = true;
    if (this.#failure !== undefined) {
      this.#done = true;
      return Promise.reject(this.#failure);
    }
    return new Promise<string>((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#timer = setTimeout(() => {
        const what =
          this.#ws.readyState === WebSocket.CONNECTING ? 'the handshake did not complete' : 'no final transcript';
        this.#fail(new ProviderTimeout(label, `${what} within ${this.#stallMs} ms of the end of the audio`));
      }, this.#stallMs);
      if (this.#ws.readyState === WebSocket.OPEN) this.#sendEnd();
    });
  }

  cancel(reason?: unknown): void {
    if (this.#done) return;
    this.#ended = true;
    this.#done = true;
    this.#queued = [];
    clearTimeout(this.#timer);
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(reason ?? new Error('deepgram: the stream was cancelled'));
    this.#closeSocket();
  }

  #opened(): void {
    for (const bytes of this.#queued) this.#ws.send(bytes);
    this.#queued = [];
    if (this.#pending !== undefined) this.#sendEnd();
  }

  /** Flush (the final result comes back `from_finalize`), then close once the rest is sent. */
  #sendEnd(): void {
    this.#ws.send(JSON.stringify({ type: 'Finalize' }));
    this.#ws.send(JSON.stringify({ type: 'CloseStream' }));
  }

  #received(data: RawData, isBinary: boolean): void {
    if (this.#done) return;
    if (isBinary) return this.#fail(new ProviderError(label, 'sent a binary frame (it sends JSON text frames)'));
    let frame;
    try {
      frame = parseFrame(rawText(data));
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      return this.#fail(new ProviderError(label, `sent ${err.message}`, { cause: err }));
    }
    if (frame.type !== 'Results') return;
    this.#heard.add(frame);
    if (frame.fromFinalize && this.#pending !== undefined) this.#settle();
  }

  #closed(code: number, reason: string): void {
    clearTimeout(this.#timer);
    // the end of a finished stream: CloseStream answered, every final result in
    if (code === 1000 && this.#pending !== undefined) return this.#settle();
    const why = reason === '' ? `${code}` : `${code} ${reason}`;
    const when = this.#ended ? 'before its final transcript' : 'mid-utterance';
    this.#fail(new ProviderError(label, `the stream was closed ${when} (${why})`));
  }

  /** A handshake answered with an error status: Deepgram says why in `dg-error` and the body. */
  #refused(res: IncomingMessage): void {
    const header = res.headers['dg-error'];
    const fail = (detail: string) => {
      const why = detail === '' ? '' : `: ${detail}`;
      this.#fail(new ProviderError(label, `the handshake was refused: HTTP ${res.statusCode}${why}${fixFor(res)}`));
    };
    if (typeof header === 'string' && header !== '') return fail(header);
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      body += chunk;
      if (body.length >= maxRefusalBytes) res.destroy();
    });
    // a body cut short says less, not nothing: what arrived is the detail
    res.on('error', () => fail(errorOf(body)));
    res.on('close', () => fail(errorOf(body)));
  }

  /** Keeps the first failure, lets the socket go, and rejects a waiting finish() (or the next one). */
  #fail(err: ProviderError): void {
    // after cancel() or a settled finish() nobody waits for this socket: the failure is moot
    if (this.#done || this.#failure !== undefined) return;
    this.#failure = err;
    this.#queued = [];
    clearTimeout(this.#timer);
    this.#closeSocket();
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    this.#done = true;
    pending.reject(err);
  }

  #settle(): void {
    const pending = this.#pending!;
    this.#pending = undefined;
    this.#done = true;
    clearTimeout(this.#timer);
    pending.resolve(this.#heard.final);
    this.#closeSocket();
  }

  /** A clean close (1000) once open; a handshake under way is aborted. */
  #closeSocket(): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000);
    else if (this.#ws.readyState === WebSocket.CONNECTING) this.#ws.terminate();
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');
}

/** Deepgram's error body `{err_code, err_msg}` as one line, or the body's text. */
function errorOf(body: string): string {
  try {
    const json = JSON.parse(body) as { err_code?: unknown; err_msg?: unknown };
    if (typeof json.err_msg === 'string')
      return typeof json.err_code === 'string' ? `${json.err_msg} (${json.err_code})` : json.err_msg;
  } catch {
    // not JSON: the text itself is the detail
  }
  return body.trim().slice(0, 200);
}

/** What an operator does about a refusal. */
function fixFor(res: IncomingMessage): string {
  if (res.statusCode === 401 || res.statusCode === 403) return '; check PARLEY_DEEPGRAM_API_KEY';
  if (res.statusCode === 400) return "; check the preset's stt model and language";
  return '';
}
