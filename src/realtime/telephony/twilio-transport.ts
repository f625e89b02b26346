import { ReplaySubject, Subject } from 'rxjs';
import type { WebSocket } from 'ws';
import type { AudioFrame } from '../../audio/audio-frame.js';
import { EchoGuard } from '../../audio/echo-guard.js';
import { mulawDecode, mulawEncode } from '../../audio/mulaw.js';
import type { MediaTransport } from '../../sessions/transport/media-transport.js';
import type { ClientMessage, ServerEvent } from '../../sessions/transport/messages.js';
import type { CarrierCalls } from '../../telephony/carrier-calls.js';
import { streamFormat, type OutboundMessage } from './media-stream-protocol.js';

/** The carrier's REST API for this call (TWILIO_ACCOUNT_SID set), and where its failures are told. */
export interface CallControl {
  calls: CarrierCalls;
  /** A hang-up that failed (the call may stay up until the caller hangs up): logged by the caller. */
  failed(what: 'hang_up', err: unknown): void;
}

/** Twilio plays 20 ms per inbound `media`; Parley sends the same (the playout's frames). */
const markEveryMs = 200;
/** Keypad digits typed within this long of each other reach the session as one text message. */
export const dtmfGapMs = 1500;

/**
 * One phone call's Twilio Media Stream as a MediaTransport. μ-law 8 kHz in and out: the session's
 * microphone graph resamples to 16 kHz for the VAD and STT, and its speech reaches `sendAudio`
 * already at 8 kHz (`outputSampleRate`), in the playout's 20 ms frames, each one `media` message:
 * exactly 160 μ-law bytes, as Twilio expects (the playout joins a short tail with the next audio,
 * or pads it with silence; the echo guard is told every frame as sent, padding included).
 *
 * Marks: after every ~200 ms of audio, and at the end of each answer, a `mark` is sent; Twilio
 * echoes it once the caller has heard everything before it, so `heardMs` counts what was played.
 * A phone's buffer cannot pause: a pause or barge-in sends `clear`, which drops what Twilio holds
 * (at most the playout's lead, 120 ms), and the playout sends again on resume what was cleared.
 *
 * Echo: what the caller's phone plays can come back on its microphone (a speakerphone, a carrier
 * that does not cancel echo). The call's EchoGuard (audio/echo-guard.ts) is told every frame sent
 * and every `clear`, and hands on the caller's audio with the agent's own echo muted, so the echo
 * neither pauses nor interrupts the agent; browsers and LiveKit clients cancel echo themselves.
 *
 * Keypad digits (`dtmf`) reach the session as one `dtmf` message (digits gathered until `#` or a
 * 1.5 s gap), which it answers as the text `keypad: 123` and announces as a `dtmf` event. The call
 * carries no text: session events without audio meaning are dropped.
 */
export class TwilioTransport implements MediaTransport {
  readonly kind = 'twilio';
  readonly inputSampleRate = streamFormat.sampleRate;
  readonly outputSampleRate = streamFormat.sampleRate;
  private readonly audio = new Subject<AudioFrame>();
  private readonly messages = new Subject<ClientMessage>();
  private readonly closed = new ReplaySubject<void>(1);
  readonly audio$ = this.audio.asObservable();
  private readonly arrived = new Subject<AudioFrame>();
  /** The caller's audio before the echo guard: what a recording keeps. */
  readonly arrivedAudio$ = this.arrived.asObservable();
  readonly messages$ = this.messages.asObservable();
  readonly closed$ = this.closed.asObservable();
  private finished = false;
  private sentSamples = 0;
  private markedSamples = 0;
  private marks = 0;
  /** Sent samples at each mark not yet echoed, by name. */
  private readonly pendingMarks = new Map<string, number>();
  private heardSamples = 0;
  /** Sent samples when the current answer began (`audio_start`). */
  private answerStartSamples = 0;
  private digits = '';
  private digitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    readonly streamSid: string,
    readonly callSid: string,
    /** Without it (no TWILIO_ACCOUNT_SID) transfer is refused and an ended session only closes the stream. */
    private readonly control?: CallControl,
    /** The agent's echo muted in what the caller sends; null: the audio passes as it came. */
    private readonly echo: EchoGuard | null = new EchoGuard({ sampleRate: streamFormat.sampleRate }),
  ) {}

  /** Milliseconds of the agent's speech the caller has heard, by the marks Twilio echoed. */
  get heardMs(): number {
    return (this.heardSamples * 1000) / this.outputSampleRate;
  }

  /** Milliseconds of the agent's speech sent to Twilio. */
  get sentMs(): number {
    return (this.sentSamples * 1000) / this.outputSampleRate;
  }

  /** Milliseconds of the current answer heard: echoed marks past its `audio_start`. */
  answerHeardMs(): number {
    return (Math.max(0, this.heardSamples - this.answerStartSamples) * 1000) / this.outputSampleRate;
  }

  /** An inbound `media` payload (μ-law bytes). */
  receiveAudio(bytes: Uint8Array): void {
    if (this.finished || bytes.length === 0) return;
    const samples = mulawDecode(bytes);
    this.arrived.next({ samples, sampleRate: this.inputSampleRate });
    if (this.echo === null) this.pass(samples);
    else this.echo.hear(samples, this.pass);
  }

  private readonly pass = (samples: Int16Array): void => this.audio.next({ samples, sampleRate: this.inputSampleRate });

  /** Twilio echoed a mark: everything sent before it has been played to the caller. */
  receiveMark(name: string): void {
    const at = this.pendingMarks.get(name);
    if (at === undefined) return;
    this.pendingMarks.delete(name);
    this.heardSamples = Math.max(this.heardSamples, at);
  }

  receiveDigit(digit: string): void {
    if (this.finished) return;
    clearTimeout(this.digitTimer);
    if (digit !== '#') this.digits += digit;
    if (digit === '#' || this.digits.length >= 32) this.flushDigits();
    else this.digitTimer = setTimeout(() => this.flushDigits(), dtmfGapMs);
  }

  send(event: ServerEvent): void {
    if (event.type === 'interrupted') this.clear();
    else if (event.type === 'audio_start') this.answerStartSamples = this.sentSamples;
    else if (event.type === 'audio_end') this.mark(`turn-${event.turn}-end`);
  }

  sendAudio(samples: Int16Array): void {
    if (samples.length === 0) return;
    const payload = Buffer.from(mulawEncode(samples)).toString('base64');
    this.write({ event: 'media', streamSid: this.streamSid, media: { payload } });
    this.echo?.played(samples);
    this.sentSamples += samples.length;
    if (this.sentSamples - this.markedSamples >= (markEveryMs * this.outputSampleRate) / 1000)
      this.mark(`audio-${this.marks + 1}`);
  }

  /** Barge-in or pause: Twilio drops the audio it holds; marks after it will never be echoed. */
  dropQueuedAudio(): void {
    this.clear();
  }

  /** The carrier redirects the call to `<Dial>` `to` (REST API); the caller leaves the stream. */
  transfer(to: string | null): Promise<void> {
    if (this.control === undefined)
      return Promise.reject(new Error('transfer needs the carrier REST API: set TWILIO_ACCOUNT_SID'));
    if (to === null) return Promise.reject(new Error('no transfer destination (the agent has no transfer_to)'));
    return this.control.calls.transfer(this.callSid, to);
  }

  /**
   * The session ended on Parley's side (end_call, timeouts, shutdown): the stream closes and, with
   * the REST API, the call is completed too, so the caller's line is freed at once. After the
   * caller's own `stop` (finished) there is nothing to hang up.
   */
  close(code = 1000, reason = ''): void {
    if (!this.finished && this.control !== undefined && this.callSid !== '') {
      const { calls, failed } = this.control;
      calls.hangUp(this.callSid).catch((err: unknown) => failed('hang_up', err));
    }
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING)
      this.ws.close(code, reason.slice(0, 120));
    this.finish();
  }

  /** The stream is over (`stop`, or the socket closed): the caller hung up. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.digitTimer);
    this.audio.complete();
    this.arrived.complete();
    this.messages.complete();
    this.closed.next();
    this.closed.complete();
  }

  private flushDigits(): void {
    this.digitTimer = undefined;
    if (this.digits === '' || this.finished) return;
    this.messages.next({ type: 'dtmf', digits: this.digits });
    this.digits = '';
  }

  private mark(name: string): void {
    if (this.sentSamples === this.markedSamples && name.startsWith('audio-')) return;
    this.marks++;
    this.markedSamples = this.sentSamples;
    this.pendingMarks.set(name, this.sentSamples);
    this.write({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }

  private clear(): void {
    // What was cleared is never played: its marks' echoes (Twilio returns them at once) count nothing.
    this.pendingMarks.clear();
    this.echo?.dropped();
    this.write({ event: 'clear', streamSid: this.streamSid });
  }

  private write(message: OutboundMessage): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }
}
