import { createHash, randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';

/** When the fake answers, in ms. */
export interface FakeTimings {
  /** Audio between two interim results. */
  interimEveryMs: number;
  /** How long after the audio (or the control message) a result is sent: Deepgram's ~150-300 ms. */
  resultDelayMs: number;
  /** A random extra delay in [0, this) per result (150 + 150: Deepgram's 150-300 ms); results stay in order. */
  resultJitterMs: number;
  /** Audio per word of a script line: how many of its words an interim result has heard. */
  wordMs: number;
  /** Neither audio nor a text message for this long: close 1011 `NET-0001`, as Deepgram does after 10 s. */
  idleTimeoutMs: number;
}

export const defaultFakeTimings: FakeTimings = {
  interimEveryMs: 500,
  resultDelayMs: 200,
  resultJitterMs: 0,
  wordMs: 300,
  idleTimeoutMs: 10_000,
};

/** A way the fake fails, for the next stream it applies to (see FakeDeepgram.fail). */
export type FakeFault =
  /** The next handshake is answered with this status (`header: false`: no `dg-error` header, the body only). */
  | { kind: 'refuse'; status: number; message: string; header?: boolean }
  /** Closes the socket once a stream has received `afterMs` of audio. */
  | { kind: 'close'; afterMs: number; code: number; reason: string }
  /** Sends a text frame that is not JSON once a stream has received `afterMs` of audio. */
  | { kind: 'garbage'; afterMs: number }
  /** Never answers the next stream's Finalize and CloseStream (`only`: that one), and never closes it. */
  | { kind: 'stall'; only?: 'Finalize' | 'CloseStream' };

type StallFault = Extract<FakeFault, { kind: 'stall' }>;

/** What a stream asks its server for: the script's lines and the pending faults. */
export interface FakeStreamHost {
  /** The line the next finalized utterance says (`take`: it is that one's). */
  line(take: boolean): string;
  /** The pending fault if it is of these kinds (`take`: it is this stream's). */
  fault(kinds: FakeFault['kind'][], take: boolean): FakeFault | undefined;
}

const sampleRate = (params: URLSearchParams) => Number(params.get('sample_rate') ?? 16_000);

/**
 * One `/v1/listen` stream of the fake: binary messages are linear16 audio; text messages are
 * `KeepAlive`, `Finalize` (the rest of the utterance as a final result, `from_finalize: true`) and
 * `CloseStream` (what is left, then `Metadata`, then close 1000). Interim results come every
 * `interimEveryMs` of audio with the words of the script's next line the audio can hold; the
 * final result has the whole line, punctuated as scripted only when `punctuate` or `smart_format`
 * is asked for (else lower-case words, as Deepgram writes them).
 */
export class FakeListenStream {
  readonly requestId = randomUUID();
  readonly controls: string[] = [];
  samples = 0;
  /** The script line the utterance was finalized with; null until then. */
  transcript: string | null = null;
  /** The close frame the client sent (Parley's own close), or null. */
  clientClose: { code: number; reason: string } | null = null;
  /** The close the fake itself sent, or null. */
  serverClose: { code: number; reason: string } | null = null;
  closed = false;
  readonly #hash = createHash('sha256');
  #finalizedSamples = 0;
  #interimAt = 0;
  /** The results queued, each sent at its time but never before the one queued before it. */
  #queue: Promise<void> = Promise.resolve();
  #stall: StallFault | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly params: URLSearchParams,
    private readonly host: FakeStreamHost,
    private readonly timings: FakeTimings,
  ) {
    this.#touch();
    ws.on('message', (data, isBinary) => this.#received(data, isBinary));
    ws.on('close', (code, reason) => {
      this.closed = true;
      clearTimeout(this.#idle);
      if (this.serverClose === null) this.clientClose = { code, reason: reason.toString() };
    });
    ws.on('error', () => undefined); // a client gone mid-frame: `close` follows and records it
  }

  get audioMs(): number {
    return (this.samples * 1000) / sampleRate(this.params);
  }

  close(code: number, reason: string): void {
    if (this.closed || this.serverClose !== null) return;
    this.serverClose = { code, reason };
    this.ws.close(code, reason);
  }

  #received(data: RawData, isBinary: boolean): void {
    this.#touch();
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    if (isBinary) {
      // an empty binary message is the old way to close a stream
      if (bytes.length === 0) return this.#control('CloseStream');
      this.#hash.update(bytes);
      this.samples += Math.floor(bytes.length / 2);
      if (this.samples === bytes.length / 2 && this.params.get('vad_events') === 'true')
        this.#later(() => this.#send({ type: 'SpeechStarted', channel: [0], timestamp: 0 }));
      this.#faultsOnAudio();
      if (this.audioMs - this.#interimAt >= this.timings.interimEveryMs) {
        this.#interimAt = this.audioMs;
        const words = this.#words(false).slice(0, Math.floor(this.audioMs / this.timings.wordMs));
        this.#later(() => this.#results(words.join(' '), { is_final: false }));
      }
      return;
    }
    let type: unknown;
    try {
      type = (JSON.parse(bytes.toString('utf8')) as { type?: unknown }).type;
    } catch {
      type = undefined; // Deepgram ignores a text message it cannot read; so does the fake
    }
    if (typeof type === 'string') this.#control(type);
  }

  #control(type: string): void {
    this.controls.push(type);
    if (type !== 'Finalize' && type !== 'CloseStream') return;
    this.#stall ??= this.host.fault(['stall'], true) as StallFault | undefined;
    if (this.#stall !== undefined && (this.#stall.only ?? type) === type) {
      clearTimeout(this.#idle);
      return;
    }
    this.#later(() => {
      if (this.samples > this.#finalizedSamples) this.#final(type === 'Finalize');
      if (type === 'CloseStream') {
        this.#send(this.#metadata());
        this.close(1000, '');
      }
    });
  }

  #final(fromFinalize: boolean): void {
    this.#finalizedSamples = this.samples;
    this.transcript = this.host.line(true);
    this.#results(this.#words(true).join(' '), { is_final: true, speech_final: false, from_finalize: fromFinalize });
    if (this.params.has('utterance_end_ms'))
      this.#send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: this.audioMs / 1000 });
  }

  #faultsOnAudio(): void {
    const fault = this.host.fault(['close', 'garbage'], false);
    if (fault === undefined || !('afterMs' in fault) || this.audioMs < fault.afterMs) return;
    this.host.fault(['close', 'garbage'], true);
    if (fault.kind === 'close') this.close(fault.code, fault.reason);
    else this.ws.send('<html><body>502 Bad Gateway</body></html>');
  }

  /** The words of the line this utterance says, as Deepgram writes them with these parameters. */
  #words(take: boolean): string[] {
    const line = take ? (this.transcript ?? '') : this.host.line(false);
    const punctuated = this.params.get('punctuate') === 'true' || this.params.get('smart_format') === 'true';
    const words = line.split(/\s+/).filter((w) => w !== '');
    return punctuated ? words : words.map(plain).filter((w) => w !== '');
  }

  #results(transcript: string, flags: Record<string, boolean>): void {
    const words = transcript.split(' ').filter((w) => w !== '');
    const step = words.length === 0 ? 0 : this.audioMs / 1000 / words.length;
    this.#send({
      type: 'Results',
      channel_index: [0, 1],
      duration: this.audioMs / 1000,
      start: 0,
      speech_final: false,
      ...flags,
      channel: {
        alternatives: [
          {
            transcript,
            confidence: words.length === 0 ? 0 : 0.98,
            words: words.map((w, i) => ({
              word: plain(w),
              start: i * step,
              end: (i + 1) * step,
              confidence: 0.98,
              punctuated_word: w,
            })),
          },
        ],
      },
      metadata: { request_id: this.requestId, model_info: this.#modelInfo(), model_uuid: this.requestId },
    });
  }

  #metadata(): Record<string, unknown> {
    return {
      type: 'Metadata',
      transaction_key: 'deprecated',
      request_id: this.requestId,
      sha256: this.#hash.copy().digest('hex'),
      created: new Date().toISOString(),
      duration: this.audioMs / 1000,
      channels: 1,
      models: [this.requestId],
      model_info: { [this.requestId]: this.#modelInfo() },
    };
  }

  #modelInfo() {
    const model = this.params.get('model') ?? 'base';
    return { name: `general-${model}`, version: '2025-01-01.0', arch: model };
  }

  #send(message: unknown): void {
    if (!this.closed && this.serverClose === null) this.ws.send(JSON.stringify(message));
  }

  #later(action: () => void): void {
    const dueAt = performance.now() + this.timings.resultDelayMs + Math.random() * this.timings.resultJitterMs;
    this.#queue = this.#queue
      .then(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - performance.now()))))
      .then(action);
  }

  #touch(): void {
    clearTimeout(this.#idle);
    if (this.#stall !== undefined) return;
    this.#idle = setTimeout(() => this.close(1011, 'NET-0001'), this.timings.idleTimeoutMs);
  }
}

/** A word without punctuation, lower-case. */
function plain(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
}
