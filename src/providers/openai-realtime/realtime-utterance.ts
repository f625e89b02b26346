import { WebSocket } from 'ws';
import { Resampler } from '../../audio/resampler.js';
import { ProviderTimeout } from '../call-deadline.js';
import { ProviderError } from '../provider-error.js';
import type { SttStream } from '../stt.js';
import {
  closedReason,
  connectRealtime,
  realtimeLabel,
  unreachableReason,
  type RealtimeEndpoint,
} from './realtime-connection.js';
import {
  appendAudio,
  clearAudio,
  commitAudio,
  describeRealtimeError,
  parseServerEvent,
  realtimeRate,
  sessionUpdate,
  type ServerEvent,
  type TranscriptionSettings,
} from './realtime-events.js';

/** The time limits of one utterance, in ms. */
export interface UtteranceLimits {
  /** Longest wait for the session to be ready (socket open, `session.updated`). */
  connectMs: number;
  /** After the commit: the longest silence from the server before the transcript. */
  stallMs: number;
  /** After the commit: the longest wait for the transcript. */
  totalMs: number;
  /**
   * Audio written but not yet sent (queued while the session opens, or in the socket's buffer)
   * past which a stream fails: it is behind real time. Infinity: a whole utterance at once.
   */
  maxLagMs: number;
}

/** Characters on the wire per ms of 24 kHz PCM16 (48 bytes, 64 in base64). */
const wireCharsPerMs = 64;
/** Less than 100 ms the API refuses to commit (`input_audio_buffer_commit_empty`): no words. */
const minCommitSamples = realtimeRate / 10;

/**
 * One utterance on one Realtime transcription session (its own WebSocket): the session is
 * configured as the socket opens, audio written meanwhile is queued and sent once the server has
 * applied the configuration (`session.updated`), then each write is resampled to 24 kHz and
 * appended as it comes. `finish()` commits the buffer and resolves with the item's `completed`
 * transcript; deltas before it build `partial`. Any failure (a refused handshake, an `error` or
 * `failed` event, the socket closing, a limit passing, audio piling up unsent) closes the socket
 * and rejects `finish()` with a ProviderError. `cancel()` clears the buffer and closes the socket.
 */
export class RealtimeUtterance implements SttStream {
  readonly #ws: WebSocket;
  readonly #limits: UtteranceLimits;
  readonly #resampler: Resampler | null;
  /** Messages written before the session was ready. */
  #queue: string[] = [];
  #queuedChars = 0;
  #opened = false;
  #ready = false;
  /** 24 kHz samples appended. */
  #samples = 0;
  #partial = '';
  #itemId: string | undefined;
  #failure: unknown;
  /** No more writes: finish() was called, or the stream was cancelled. */
  #ended = false;
  /** The socket is closed or closing: nothing it says matters any more. */
  #closed = false;
  #settle: { resolve: (text: string) => void; reject: (err: unknown) => void } | undefined;
  readonly #connectTimer: NodeJS.Timeout;
  #totalTimer: NodeJS.Timeout | undefined;
  #stallTimer: NodeJS.Timeout | undefined;

  constructor(endpoint: RealtimeEndpoint, settings: TranscriptionSettings, inputRate: number, limits: UtteranceLimits) {
    this.#limits = limits;
    this.#resampler = inputRate === realtimeRate ? null : new Resampler(inputRate, realtimeRate);
    this.#ws = connectRealtime(endpoint, (reason) => this.#fail(new ProviderError(realtimeLabel, reason)));
    this.#connectTimer = this.#after(limits.connectMs, `no transcription session within ${limits.connectMs} ms`);
    this.#ws.on('open', () => {
      this.#opened = true;
      this.#ws.send(sessionUpdate(settings));
    });
    this.#ws.on('message', (data, isBinary) => this.#receive(isBinary ? null : parseServerEvent(String(data))));
    this.#ws.on('error', (err) => {
      const reason = this.#opened ? `the connection failed: ${err.message}` : unreachableReason(endpoint, err);
      this.#fail(new ProviderError(realtimeLabel, reason, { cause: err }));
    });
    this.#ws.on('close', (code, reason) =>
      this.#fail(new ProviderError(realtimeLabel, closedReason(code, String(reason)))),
    );
  }

  get partial(): string {
    return this.#partial;
  }

  /**
   * Always true: a failed session fails its turn when `finish()` reports it, rather than having
   * the utterance transcribed whole once more (remote calls are not retried within a turn).
   */
  get healthy(): boolean {
    return true;
  }

  write(samples: Int16Array): void {
    if (this.#ended || this.#closed || samples.length === 0) return;
    this.#append(this.#resampler === null ? samples : this.#resampler.push(samples));
    const lagChars = this.#queuedChars + this.#ws.bufferedAmount;
    if (lagChars > this.#limits.maxLagMs * wireCharsPerMs)
      this.#fail(
        new ProviderError(
          realtimeLabel,
          `behind real time: ${Math.round(lagChars / wireCharsPerMs)} ms of audio not sent yet`,
        ),
      );
  }

  finish(): Promise<string> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#ended) return Promise.reject(new Error('the stream has ended'));
    this.#ended = true;
    const tail = this.#resampler?.flush();
    if (tail !== undefined) this.#append(tail);
    if (this.#samples < minCommitSamples) {
      this.cancel();
      return Promise.resolve('');
    }
    this.#send(commitAudio);
    return new Promise<string>((resolve, reject) => {
      this.#settle = { resolve, reject };
      this.#totalTimer = this.#after(
        this.#limits.totalMs,
        `no transcript within ${this.#limits.totalMs} ms of the end of speech`,
      );
      this.#bumpStall();
    });
  }

  /** Drops the utterance: the server's buffer is cleared and the socket closed; a pending finish() rejects with `reason`. */
  cancel(reason?: unknown): void {
    if (this.#closed) return;
    this.#ended = true;
    if (this.#ready) this.#ws.send(clearAudio);
    const settle = this.#settle;
    this.#close();
    settle?.reject(reason ?? new ProviderError(realtimeLabel, 'the utterance was cancelled'));
  }

  #append(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.#samples += samples.length;
    this.#send(appendAudio(samples));
  }

  #send(message: string): void {
    if (this.#ready) {
      this.#ws.send(message);
      return;
    }
    this.#queue.push(message);
    this.#queuedChars += message.length;
  }

  #receive(event: ServerEvent | null): void {
    if (this.#closed) return;
    if (event === null) {
      this.#fail(new ProviderError(realtimeLabel, 'the server sent a message that is not a Realtime event'));
      return;
    }
    if (this.#settle !== undefined) this.#bumpStall();
    switch (event.type) {
      case 'session.updated':
        if (this.#ready) return;
        this.#ready = true;
        clearTimeout(this.#connectTimer);
        for (const message of this.#queue) this.#ws.send(message);
        this.#queue = [];
        this.#queuedChars = 0;
        return;
      case 'input_audio_buffer.committed':
        this.#itemId ??= event.item_id;
        return;
      case 'conversation.item.input_audio_transcription.delta':
        if (this.#mine(event.item_id)) this.#partial += event.delta;
        return;
      case 'conversation.item.input_audio_transcription.completed':
        // before the commit there is no utterance of Parley's to complete
        if (this.#settle !== undefined && this.#mine(event.item_id)) this.#complete(event.transcript);
        return;
      case 'conversation.item.input_audio_transcription.failed':
        if (this.#mine(event.item_id))
          this.#fail(new ProviderError(realtimeLabel, `transcription failed: ${describeRealtimeError(event.error)}`));
        return;
      case 'error':
        this.#fail(
          new ProviderError(realtimeLabel, `the server reported an error: ${describeRealtimeError(event.error)}`),
        );
        return;
      default:
        return; // session.created, conversation.item.added, …: nothing to read
    }
  }

  /** Whether an event's item is this utterance's (the one committed; any before the commit is known). */
  #mine(itemId: string): boolean {
    return this.#itemId === undefined || itemId === '' || itemId === this.#itemId;
  }

  #complete(transcript: string): void {
    const settle = this.#settle;
    this.#close();
    settle?.resolve(transcript.trim());
  }

  /** Keeps the first failure; a pending finish() rejects with it. */
  #fail(err: unknown): void {
    if (this.#closed) return;
    this.#failure = err;
    const settle = this.#settle;
    this.#close();
    settle?.reject(err);
  }

  #close(): void {
    this.#closed = true;
    this.#settle = undefined;
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#totalTimer);
    clearTimeout(this.#stallTimer);
    this.#queue = [];
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000);
    else if (this.#ws.readyState === WebSocket.CONNECTING) this.#ws.terminate();
  }

  /** Fails with a ProviderTimeout saying `why` unless the utterance is over within `ms`. */
  #after(ms: number, why: string): NodeJS.Timeout {
    return setTimeout(() => this.#fail(new ProviderTimeout(realtimeLabel, `timed out: ${why}`)), ms);
  }

  #bumpStall(): void {
    clearTimeout(this.#stallTimer);
    const ms = this.#limits.stallMs;
    this.#stallTimer = setTimeout(
      () => this.#fail(new ProviderTimeout(realtimeLabel, `timed out: nothing from the server for ${ms} ms`)),
      ms,
    );
  }
}
