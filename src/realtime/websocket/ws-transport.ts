import { ReplaySubject, Subject } from 'rxjs';
import type { WebSocket } from 'ws';
import type { AudioFrame } from '../../audio/audio-frame.js';
import type { MediaTransport } from '../../sessions/transport/media-transport.js';
import type { ClientMessage, ServerEvent } from '../../sessions/transport/messages.js';
import { decodeClientMessage, encodeServerEvent } from './protocol.js';

/** Largest binary message accepted: 1 s of 48 kHz PCM16. */
const maxAudioBytes = 96_000;

/**
 * A WebSocket as a MediaTransport. Bad input (odd-length or oversized audio, non-JSON or unknown
 * messages) gets an `error` event and is dropped; the connection and the process carry on. Audio
 * is handed on as it arrives: the session's microphone graph (pipeline/listen.ts) meters it
 * against real time and bounds what it holds, the same for every transport.
 */
export class WsTransport implements MediaTransport {
  readonly kind = 'websocket';
  readonly outputSampleRate: number;
  private readonly audio = new Subject<AudioFrame>();
  private readonly messages = new Subject<ClientMessage>();
  private readonly closed = new ReplaySubject<void>(1);
  readonly audio$ = this.audio.asObservable();
  readonly messages$ = this.messages.asObservable();
  readonly closed$ = this.closed.asObservable();
  private finished = false;

  constructor(
    private readonly ws: WebSocket,
    readonly inputSampleRate: number,
  ) {
    this.outputSampleRate = inputSampleRate;
    ws.on('message', (data, isBinary) => (isBinary ? this.onAudio(data as Buffer) : this.onText(String(data))));
    ws.on('close', () => this.finish());
    ws.on('error', () => this.finish());
  }

  send(event: ServerEvent): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(encodeServerEvent(event));
  }

  sendAudio(samples: Int16Array): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength), { binary: true });
  }

  /** The client carries the transfer out (its app knows how); Parley tells it and ends the session. */
  transfer(to: string | null): Promise<void> {
    this.send({ type: 'transfer', to });
    return Promise.resolve();
  }

  close(code = 1000, reason = ''): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING)
      this.ws.close(code, reason.slice(0, 120));
    this.finish();
  }

  private onAudio(data: Buffer): void {
    if (data.byteLength === 0) return;
    if (data.byteLength % 2 !== 0 || data.byteLength > maxAudioBytes) {
      this.send({
        type: 'error',
        code: 'bad_audio_frame',
        message: `binary messages must be PCM16LE with an even length of at most ${maxAudioBytes} bytes`,
      });
      return;
    }
    // The frame is a view on the message buffer: no copy unless it is misaligned.
    const aligned = data.byteOffset % 2 === 0 ? data : Buffer.from(data);
    const samples = new Int16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
    this.audio.next({ samples, sampleRate: this.inputSampleRate });
  }

  private onText(text: string): void {
    const decoded = decodeClientMessage(text);
    if (decoded.ok) this.messages.next(decoded.message);
    else this.send(decoded.error);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.audio.complete();
    this.messages.complete();
    this.closed.next();
    this.closed.complete();
  }
}
