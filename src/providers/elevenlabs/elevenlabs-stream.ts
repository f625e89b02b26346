import { WebSocket, type RawData } from 'ws';
import { Pcm16Decoder } from '../../audio/pcm16-decoder.js';
import { ChunkQueue } from '../chunk-queue.js';
import { ProviderError, ProviderNotConfigured } from '../provider-error.js';
import type { TtsStream, TtsStreamChunk, TtsStreamRequest } from '../tts.js';
import {
  describeClose,
  pcmFormatFor,
  serverMessageSchema,
  streamInputUrl,
  voiceSpeed,
  type ServerMessage,
} from './elevenlabs-protocol.js';
import { SpokenSegments } from './spoken-segments.js';

/** Where and as whom to reach ElevenLabs (PARLEY_ELEVENLABS_URL, PARLEY_ELEVENLABS_API_KEY). */
export interface ElevenLabsEndpoint {
  apiKey: string | undefined;
  url: string;
}

export interface ElevenLabsStreamOptions {
  /** `inactivity_timeout`: seconds without text before ElevenLabs closes the stream (1008). */
  inactivityTimeoutS: number;
}

const provider = 'elevenlabs';

/**
 * One answer over one stream-input socket (elevenlabs-protocol.ts). The socket opens at once;
 * what is pushed before it is open waits in order. Text goes out a word at a time (each message
 * ends with a space, as ElevenLabs asks; an unfinished word waits for the rest of it), `flush`
 * sends `flush: true`, `end` sends `{"text":""}`. Audio comes back as `pcm_<rate>` at the
 * request's rate (or the next above), placed in its segment by its alignment (spoken-segments.ts).
 *
 * An error message, a close before `isFinal` (a bad key or the quota: 1008; a server fault: 1011;
 * a dropped connection) or a refused handshake fails `audio` with a ProviderError. An abort of the
 * request's signal (barge-in, hang-up) closes the socket and ends `audio` quietly.
 */
export class ElevenLabsStream implements TtsStream {
  private readonly queue = new ChunkQueue<TtsStreamChunk>();
  private readonly segments = new SpokenSegments();
  private readonly pcm = new Pcm16Decoder();
  private readonly sampleRate: number;
  private readonly ws: WebSocket | null = null;
  private readonly outbox: string[] = [];
  /** The last word pushed, until the whitespace after it (or a flush) completes it. */
  private word = '';
  private ended = false;
  private heard = false;
  private done = false;

  constructor(endpoint: ElevenLabsEndpoint, request: TtsStreamRequest, options: ElevenLabsStreamOptions) {
    const { format, sampleRate } = pcmFormatFor(request.sampleRate ?? 16_000);
    this.sampleRate = sampleRate;
    const { signal } = request;
    if (endpoint.apiKey === undefined) {
      this.fail(new ProviderNotConfigured(provider, 'speech failed: set PARLEY_ELEVENLABS_API_KEY'));
      return;
    }
    if (signal?.aborted) {
      this.finish();
      return;
    }
    const url = streamInputUrl(endpoint.url, {
      voice: request.voice,
      model: request.model,
      format,
      inactivityTimeoutS: options.inactivityTimeoutS,
    });
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { headers: { 'xi-api-key': endpoint.apiKey } });
    } catch (err) {
      // the URL or the key cannot go on the wire (a header with a newline): this call fails, as a call
      const why = err instanceof Error ? err.message : String(err);
      this.fail(new ProviderError(provider, `speech failed: ${why}`, { cause: err }));
      return;
    }
    this.ws = ws;
    ws.on('open', () => {
      for (const message of this.outbox.splice(0)) ws.send(message);
    });
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('close', (code: number, reason: Buffer) => this.closed(code, reason.toString()));
    ws.on('unexpected-response', (req, res) => {
      this.fail(
        new ProviderError(provider, `speech failed: the stream was refused with HTTP ${res.statusCode ?? '?'}`),
      );
      req.destroy();
    });
    ws.on('error', (err: Error) =>
      this.fail(new ProviderError(provider, `speech failed: ${describeSocketError(err)}`, { cause: err })),
    );
    signal?.addEventListener('abort', () => this.close(), { once: true });
    const speed = voiceSpeed(request.speed);
    // voice_settings only to change the speed: sent, it would replace the voice's own stability and similarity
    this.send({ text: ' ', ...(speed === 1 ? {} : { voice_settings: { speed } }) });
  }

  get audio(): AsyncIterable<TtsStreamChunk> {
    return this.queue;
  }

  push(text: string): void {
    if (this.ended) return;
    this.word += text;
    const cut = lastSpace(this.word);
    if (cut < 0) return;
    this.sendText(this.word.slice(0, cut + 1));
    this.word = this.word.slice(cut + 1);
  }

  flush(): void {
    if (this.ended) return;
    this.sendText(`${this.word} `, true);
    this.word = '';
    this.segments.flush();
  }

  end(): void {
    if (this.ended) return;
    if (this.word !== '') this.sendText(`${this.word} `);
    this.word = '';
    this.ended = true;
    this.send({ text: '' });
  }

  /** Stops here: the socket closes and `audio` ends quietly. */
  close(): void {
    this.finish();
    const ws = this.ws;
    if (ws === null) return;
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  }

  private sendText(text: string, flush = false): void {
    this.segments.add(text);
    this.send(flush ? { text, flush: true } : { text });
  }

  private send(message: Record<string, unknown>): void {
    const ws = this.ws;
    if (ws === null || this.done) return;
    const json = JSON.stringify(message);
    if (ws.readyState === WebSocket.OPEN) ws.send(json);
    else this.outbox.push(json);
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.done) return;
    let message: ServerMessage;
    try {
      const parsed = serverMessageSchema.safeParse(isBinary ? null : JSON.parse(String(data)));
      if (!parsed.success) throw new Error('not ElevenLabs’ shape');
      message = parsed.data;
    } catch (err) {
      return this.failAndClose(
        new ProviderError(provider, 'speech failed: the server sent a message that is not ElevenLabs’ shape', {
          cause: err,
        }),
      );
    }
    if (typeof message.error === 'string' || (typeof message.message === 'string' && !message.audio)) {
      const why = [message.message, message.error].filter((s) => typeof s === 'string' && s !== '').join(' ');
      return this.failAndClose(new ProviderError(provider, `speech failed: ${why || 'the server reported an error'}`));
    }
    if (typeof message.audio === 'string' && message.audio !== '') {
      const samples = this.pcm.push(Buffer.from(message.audio, 'base64'));
      for (const run of this.segments.place(samples, this.sampleRate, message.alignment)) {
        if (run.samples.length === 0) continue;
        this.heard = true;
        this.queue.push({ samples: run.samples, sampleRate: this.sampleRate, segment: run.segment });
      }
    }
    if (message.isFinal === true) {
      if (!this.heard && this.segments.letters > 0)
        return this.failAndClose(new ProviderError(provider, 'speech failed: the stream ended without audio'));
      this.close();
    }
  }

  private closed(code: number, reason: string): void {
    if (this.done) return;
    // ended and closed normally: all the audio came (an `isFinal` may be left out)
    if (this.ended && code === 1000) return this.finish();
    this.fail(
      new ProviderError(provider, `speech failed: the server closed the stream (${describeClose(code, reason)})`),
    );
  }

  private failAndClose(err: ProviderError): void {
    this.fail(err);
    this.ws?.terminate();
  }

  private fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.queue.fail(err);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue.end();
  }
}

function lastSpace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (/\s/.test(text[i]!)) return i;
  return -1;
}

function describeSocketError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  return err.message;
}
