import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { twilioSignature } from '../../src/realtime/telephony/twilio-signature.js';
import { FrameClock } from './frame-clock.js';
import { resample } from './pcm.js';
import { PhoneMicrophone, type LineEcho } from './phone-microphone.js';

export type { LineEcho } from './phone-microphone.js';

/** What Parley sent back on the stream, in order. */
export type CarrierReceived =
  | { event: 'media'; bytes: number }
  | { event: 'mark'; name: string }
  /** `atBytes`: the agent's audio bytes received before it (message order). */
  | { event: 'clear'; atBytes: number }
  | { event: 'other'; raw: unknown };

export interface PlaceCall {
  /** Parley's origin, e.g. http://127.0.0.1:1234 (the signed URL is this plus the webhook path). */
  parleyUrl: string;
  authToken: string;
  from: string;
  to: string;
  accountSid?: string;
  /** Overrides the signature sent (a wrong one); null: no X-Twilio-Signature header. */
  signature?: string | null;
}

export interface WebhookAnswer {
  status: number;
  contentType: string;
  body: string;
  callSid: string;
  accountSid: string;
}

const webhookPath = '/telephony/v1/twilio/voice';
const unescape = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);

/**
 * A fake Twilio, speaking its real protocol bytes: places a call (the voice webhook, form-encoded
 * and signed exactly as Twilio signs), reads the TwiML, and plays the phone on the Media Stream.
 */
export async function placeCall(call: PlaceCall): Promise<WebhookAnswer> {
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const accountSid = call.accountSid ?? `AC${'0'.repeat(32)}`;
  const params = new URLSearchParams({
    AccountSid: accountSid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: 'ringing',
    Called: call.to,
    Caller: call.from,
    Direction: 'inbound',
    From: call.from,
    To: call.to,
  });
  const url = call.parleyUrl + webhookPath;
  const signature = call.signature === undefined ? twilioSignature(call.authToken, url, params) : call.signature;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(signature === null ? {} : { 'X-Twilio-Signature': signature }),
    },
    body: params.toString(),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: await res.text(),
    callSid,
    accountSid,
  };
}

/** The `<Connect><Stream>` of a TwiML answer: its URL and parameters, or null. */
export function streamOf(twiml: string): { url: string; parameters: Record<string, string> } | null {
  const stream = /<Connect><Stream url="([^"]*)">(.*?)<\/Stream><\/Connect>/.exec(twiml);
  if (stream === null) return null;
  const parameters: Record<string, string> = {};
  for (const m of stream[2]!.matchAll(/<Parameter name="([^"]*)" value="([^"]*)"\/>/g))
    parameters[unescape(m[1]!)] = unescape(m[2]!);
  return { url: unescape(stream[1]!), parameters };
}

/** A sample above this is speech, not silence (flite's silence is exact zeros; μ-law keeps it). */
const voicedLevel = 500;

/**
 * The phone side of one Media Stream. Plays what Parley sends at real time (20 ms per 160 μ-law
 * bytes), echoing each mark once the audio before it has played, and drops its buffer on `clear`
 * (echoing the marks it held, as Twilio does).
 */
export class FakePhone {
  readonly received: CarrierReceived[] = [];
  readonly echoedMarks: string[] = [];
  closeCode: number | null = null;
  closeReason = '';
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  private sequence = 0;
  private chunk = 0;
  /** Bytes received and not yet played; marks waiting at a byte position. */
  private queuedBytes = 0;
  private playedBytes = 0;
  /** Bytes the caller actually heard: played, not counting what a `clear` dropped. */
  private heardBytes = 0;
  private receivedBytes = 0;
  private readonly pendingMarks: { name: string; at: number }[] = [];
  private readonly player: NodeJS.Timeout | undefined;
  private readonly closedPromise: Promise<void>;
  /** With a line echo: the phone's loudspeaker and microphone, on one clock. */
  private readonly microphone: PhoneMicrophone | null;

  private constructor(
    readonly ws: WebSocket,
    readonly callSid: string,
    readonly accountSid: string,
    echo?: LineEcho,
  ) {
    ws.on('message', (data) => this.onMessage(String(data)));
    this.closedPromise = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.stopPlaying();
        resolve();
      }),
    );
    // with a line echo the microphone's clock plays too (one tick: 20 ms played, 20 ms sent)
    this.microphone =
      echo === undefined
        ? null
        : new PhoneMicrophone(
            echo,
            {
              played: (samples) => this.play(samples),
              send: (heard) => this.media(Buffer.from(mulawEncode(heard)).toString('base64')),
              voiced: () => this.speechOnsets.push(this.receivedBytes),
            },
            voicedLevel,
          );
    if (this.microphone === null) this.player = setInterval(() => this.play(160), 20);
  }

  /** Opens the stream of a webhook's TwiML and sends `connected` (not yet `start`); `echo`: the line hears the phone. */
  static async connect(answer: WebhookAnswer, echo?: LineEcho): Promise<FakePhone> {
    const stream = streamOf(answer.body);
    if (stream === null) throw new Error(`no <Connect><Stream> in ${answer.body}`);
    const ws = new WebSocket(stream.url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const phone = new FakePhone(ws, answer.callSid, answer.accountSid, echo);
    phone.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    phone.parameters = stream.parameters;
    return phone;
  }

  parameters: Record<string, string> = {};

  /** The `start` message, with the TwiML's custom parameters unless others are given. */
  start(customParameters: Record<string, string> = this.parameters): void {
    this.send({
      event: 'start',
      sequenceNumber: this.nextSequence(),
      start: {
        accountSid: this.accountSid,
        streamSid: this.streamSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
      streamSid: this.streamSid,
    });
    this.microphone?.start();
  }

  /**
   * Speaks 16 kHz PCM16 as the caller: 8 kHz μ-law, 20 ms `media` messages at real-time pace (with
   * a line echo, mixed into the microphone's stream over the echo).
   */
  async speak(samples16k: Int16Array): Promise<void> {
    const all = resample(samples16k, 16_000, 8_000);
    if (this.microphone !== null) return this.microphone.say(all);
    const clock = new FrameClock(20);
    let voiced = false;
    for (let i = 0; i < all.length; i += 160) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      const frame = new Int16Array(160);
      frame.set(all.subarray(i, Math.min(all.length, i + 160)));
      if (!voiced && frame.some((s) => Math.abs(s) > voicedLevel)) {
        voiced = true;
        this.speechOnsets.push(this.receivedBytes);
      }
      this.media(Buffer.from(mulawEncode(frame)).toString('base64'));
      await clock.tick();
    }
  }

  /** One inbound `media` message with this payload (as sent: tests pass bad ones too). */
  media(payload: string): void {
    this.chunk++;
    this.send({
      event: 'media',
      sequenceNumber: this.nextSequence(),
      media: { track: 'inbound', chunk: String(this.chunk), timestamp: String(this.chunk * 20), payload },
      streamSid: this.streamSid,
    });
  }

  dtmf(digit: string): void {
    this.send({
      event: 'dtmf',
      streamSid: this.streamSid,
      sequenceNumber: this.nextSequence(),
      dtmf: { track: 'inbound_track', digit },
    });
  }

  /** The caller hangs up. */
  stop(): void {
    this.send({
      event: 'stop',
      sequenceNumber: this.nextSequence(),
      streamSid: this.streamSid,
      stop: { accountSid: this.accountSid, callSid: this.callSid },
    });
  }

  send(message: unknown): void {
    this.sendRaw(JSON.stringify(message));
  }

  sendRaw(data: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(data);
  }

  closed(): Promise<void> {
    return this.closedPromise;
  }

  close(): void {
    this.stopPlaying();
    this.ws.close();
  }

  private stopPlaying(): void {
    clearInterval(this.player);
    this.microphone?.stop();
  }

  /**
   * Bytes of the agent's audio (μ-law, 8000 per second) received, and played so far (`played`
   * counts what a clear dropped as played, for the marks; `heard` does not).
   */
  get audioBytes(): { received: number; played: number; heard: number } {
    return { received: this.receivedBytes, played: this.playedBytes, heard: this.heardBytes };
  }

  /**
   * For each `speak`, the agent's audio bytes received when its first voiced frame went out: with
   * `clear`'s `atBytes`, how much more was sent after the caller began to speak (message order).
   */
  readonly speechOnsets: number[] = [];

  /** Every `media` payload received, decoded: what the caller hears. */
  readonly heard: Int16Array[] = [];

  count(event: CarrierReceived['event']): number {
    return this.received.filter((r) => r.event === event).length;
  }

  private onMessage(text: string): void {
    const message = JSON.parse(text) as {
      event: string;
      streamSid?: string;
      media?: { payload: string };
      mark?: { name: string };
    };
    if (message.streamSid !== this.streamSid) throw new Error(`message for stream ${message.streamSid}`);
    if (message.event === 'media' && message.media !== undefined) {
      const bytes = Buffer.from(message.media.payload, 'base64');
      const decoded = mulawDecode(bytes);
      this.heard.push(decoded);
      this.microphone?.queue(decoded);
      this.received.push({ event: 'media', bytes: bytes.length });
      this.queuedBytes += bytes.length;
      this.receivedBytes += bytes.length;
    } else if (message.event === 'mark' && message.mark !== undefined) {
      this.received.push({ event: 'mark', name: message.mark.name });
      this.pendingMarks.push({ name: message.mark.name, at: this.receivedBytes });
      this.play(0);
    } else if (message.event === 'clear') {
      this.received.push({ event: 'clear', atBytes: this.receivedBytes });
      this.queuedBytes = 0;
      this.microphone?.drop();
      this.playedBytes = this.receivedBytes;
      this.play(0);
    } else this.received.push({ event: 'other', raw: message });
  }

  /** Plays up to `bytes` of the buffer, then echoes every mark whose audio has all played. */
  private play(bytes: number): void {
    const n = Math.min(bytes, this.queuedBytes);
    this.queuedBytes -= n;
    this.playedBytes += n;
    this.heardBytes += n;
    while (this.pendingMarks.length > 0 && this.pendingMarks[0]!.at <= this.playedBytes) {
      const { name } = this.pendingMarks.shift()!;
      this.echoedMarks.push(name);
      this.send({ event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, mark: { name } });
    }
  }

  private nextSequence(): string {
    this.sequence++;
    return String(this.sequence);
  }
}
