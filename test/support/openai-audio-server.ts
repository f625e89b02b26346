import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { parseWav } from '../../src/audio/wav.js';

/** One `POST /v1/audio/transcriptions` as received (multipart form). */
export interface TranscriptionCall {
  index: number;
  model: string | null;
  language: string | null;
  /** Every form field other than the file. */
  fields: Record<string, string>;
  fileName: string | null;
  fileType: string | null;
  /** The uploaded WAV, parsed. */
  audio: AudioFrame;
  authorization: string | undefined;
}

/** One `POST /v1/audio/speech` as received (JSON). */
export interface SpeechCall {
  index: number;
  body: { model?: unknown; input?: unknown; voice?: unknown; response_format?: unknown; speed?: unknown };
  authorization: string | undefined;
}

export interface ErrorReply {
  status: number;
  body?: unknown;
}

export interface SpeechReply {
  /** Audio to stream (24 kHz PCM16); default: a 440 Hz tone, 10 ms per character of input. */
  samples?: Int16Array;
  /** Bytes per written chunk; odd by default so chunks split samples. */
  chunkBytes?: number;
  /** Stop writing after this many chunks and hold the response open until the client leaves. */
  stallAfterChunks?: number;
}

export interface OpenAiAudioServerOptions {
  /** The transcript for a call, or an error status. Default: `heard <n> samples`. */
  transcribe?: (call: TranscriptionCall) => string | ErrorReply | Promise<string | ErrorReply>;
  /** How to answer a speech call. */
  speak?: (call: SpeechCall) => SpeechReply | ErrorReply | Promise<SpeechReply | ErrorReply>;
}

export const speechSampleRate = 24_000;

/** A 440 Hz tone at 24 kHz, `ms` long. */
export function tone(ms: number): Int16Array {
  const out = new Int16Array(Math.round((ms * speechSampleRate) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / speechSampleRate));
  return out;
}

const isError = (r: object): r is ErrorReply => 'status' in r;

/**
 * A local server speaking OpenAI's audio API: `POST /v1/audio/transcriptions` (multipart upload,
 * answers `{text}`) and `POST /v1/audio/speech` (JSON; streams raw 24 kHz PCM16LE in several
 * chunks, one event-loop turn apart). Records every call; `disconnects` counts responses the client
 * abandoned before they ended.
 */
export class OpenAiAudioServer {
  readonly transcriptions: TranscriptionCall[] = [];
  readonly speeches: SpeechCall[] = [];
  disconnects = 0;
  private readonly closedWaiters: (() => void)[] = [];

  /** `http://127.0.0.1:<port>/v1`, once started. */
  baseUrl = '';

  private constructor(
    private readonly server: Server,
    private readonly options: OpenAiAudioServerOptions,
  ) {}

  static async start(options: OpenAiAudioServerOptions = {}): Promise<OpenAiAudioServer> {
    const server = createServer();
    const self = new OpenAiAudioServer(server, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      self.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    self.baseUrl = `http://127.0.0.1:${address.port}/v1`;
    return self;
  }

  /** Resolves once `count` responses in total have been abandoned by the client. */
  async waitForDisconnects(count: number): Promise<void> {
    while (this.disconnects < count) await new Promise<void>((resolve) => this.closedWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '';
    if (req.method === 'POST' && path.endsWith('/audio/transcriptions')) return this.transcription(req, raw, res);
    if (req.method === 'POST' && path.endsWith('/audio/speech')) return this.speech(req, raw, res);
    sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}` } });
  }

  private async transcription(req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const call = await readTranscriptionCall(req, raw, this.transcriptions.length);
    if (call === null) return sendJson(res, 400, { error: { message: 'file is required' } });
    this.transcriptions.push(call);
    const answer = await (this.options.transcribe ?? ((c) => `heard ${c.audio.samples.length} samples`))(call);
    if (typeof answer !== 'string')
      return sendJson(res, answer.status, answer.body ?? { error: { message: 'failed' } });
    sendJson(res, 200, { text: answer });
  }

  private async speech(req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const body = JSON.parse(raw.toString('utf8')) as SpeechCall['body'];
    const call: SpeechCall = { index: this.speeches.length, body, authorization: req.headers.authorization };
    this.speeches.push(call);
    const reply: SpeechReply | ErrorReply = await (this.options.speak ?? (() => ({})))(call);
    if (isError(reply)) return sendJson(res, reply.status, reply.body ?? { error: { message: 'failed' } });
    const input = typeof body.input === 'string' ? body.input : '';
    const samples = reply.samples ?? tone(input.length * 10);
    const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const chunkBytes = reply.chunkBytes ?? 4801;
    let finished = false;
    res.on('close', () => {
      if (finished) return;
      this.disconnects++;
      for (const wake of this.closedWaiters.splice(0)) wake();
    });
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    let written = 0;
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      if (res.destroyed) return;
      if (reply.stallAfterChunks !== undefined && written === reply.stallAfterChunks) return; // held open
      res.write(bytes.subarray(at, at + chunkBytes));
      written++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    finished = true;
    res.end();
  }
}

/** A `POST /v1/audio/transcriptions` multipart upload as a TranscriptionCall; null without a file. */
export async function readTranscriptionCall(
  req: IncomingMessage,
  raw: Buffer,
  index: number,
): Promise<TranscriptionCall | null> {
  const form = await new Request('http://local/', {
    method: 'POST',
    headers: { 'content-type': req.headers['content-type'] ?? '' },
    body: raw,
  }).formData();
  const fields: Record<string, string> = {};
  let file: File | null = null;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'file') file = value;
  }
  if (file === null) return null;
  return {
    index,
    model: fields['model'] ?? null,
    language: fields['language'] ?? null,
    fields,
    fileName: file.name,
    fileType: file.type,
    audio: parseWav(new Uint8Array(await file.arrayBuffer())),
    authorization: req.headers.authorization,
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
