import { nextAgentState, type AgentState } from './agent-state.js';
import { Emitter } from './emitter.js';
import {
  flushingMessageTypes,
  isKnown,
  parseServerMessage,
  type AudioEndMessage,
  type AudioStartMessage,
  type ClientMessage,
  type EndedMessage,
  type ErrorMessage,
  type InterruptedMessage,
  type PlaybackPausedMessage,
  type PlaybackResumedMessage,
  type KnownServerMessage,
  type ReadyMessage,
  type ResponseMessage,
  type TranscriptMessage,
  type UnknownServerMessage,
} from './protocol.js';
import { createVoiceSession, type CreateSessionOptions, type VoiceSessionGrant } from './session-api.js';
import { TurnLatencyMeter, type TurnLatency } from './turn-latency.js';
import { socketOpen, type WebSocketConstructor, type WebSocketLike } from './websocket-like.js';

/** One frame of the agent's speech: PCM16 mono at `sampleRate`. */
export interface AgentAudio {
  samples: Int16Array;
  sampleRate: number;
  /** The turn of the latest `audio_start`. */
  turn: number | null;
}

/** The session is over; emitted exactly once. There is no silent reconnect: open a new session. */
export interface Ended {
  /**
   * The server's reason (`client_hangup`, `idle_timeout`, `max_duration`, `agent_deleted`, `error`,
   * `shutdown`, …), or `refused` (closed with a 4xxx code before or instead of `ended`),
   * `connection_lost` (closed without `ended`), `client_closed` (`close()` called).
   */
  reason: string;
  /** The WebSocket close code, when the socket closed. */
  code: number | null;
  /** The server's `error` message that came with a refusal, or the close reason. */
  message: string | null;
}

export interface VoiceEvents {
  [name: string]: unknown;
  ready: ReadyMessage;
  transcript: TranscriptMessage;
  response: ResponseMessage;
  audio_start: AudioStartMessage;
  audio_end: AudioEndMessage;
  /** Pause the player, keeping its buffer (the user talks over the agent). */
  playback_paused: PlaybackPausedMessage;
  /** Play on from where it paused (it was not an interruption). */
  playback_resumed: PlaybackResumedMessage;
  interrupted: InterruptedMessage;
  error: ErrorMessage;
  ended: Ended;
  /** Every JSON message, known or not, as received. */
  message: KnownServerMessage | UnknownServerMessage;
  /** A message of a type this client does not know (a newer server). */
  unknown: UnknownServerMessage;
  /** The agent's speech, frame by frame. */
  audio: AgentAudio;
  /** Playback must stop now and drop what is buffered (barge-in). */
  flush: { cause: string; turn: number | null };
  state: AgentState;
  latency: TurnLatency;
}

export interface VoiceConnectionOptions extends CreateSessionOptions {
  /** The rate of the audio sent and received (Parley accepts 8000–48000). Default 16000. */
  sampleRate?: number | undefined;
  /** Default: the global `WebSocket` (browsers, Node 22+); on Node 20 pass the `ws` package's. */
  WebSocket?: WebSocketConstructor | undefined;
}

/**
 * A live voice session on Parley's WebSocket transport. `connect()` creates the session
 * (`POST /sdk/v1/session`), opens the media connection and resolves on `ready`.
 */
export class VoiceConnection extends Emitter<VoiceEvents> {
  state: AgentState = 'connecting';
  readonly sampleRate: number;
  private socket: WebSocketLike | null = null;
  private grant: VoiceSessionGrant | null = null;
  private turn: number | null = null;
  private lastError: ErrorMessage | null = null;
  private endedWith: Ended | null = null;
  private readonly latency = new TurnLatencyMeter();

  constructor(private readonly options: VoiceConnectionOptions) {
    super();
    this.sampleRate = options.sampleRate ?? 16000;
  }

  static async connect(options: VoiceConnectionOptions): Promise<VoiceConnection> {
    const connection = new VoiceConnection(options);
    await connection.open();
    return connection;
  }

  get sessionId(): string | null {
    return this.grant?.session_id ?? null;
  }

  /** Set once the session has ended. */
  get ended(): Ended | null {
    return this.endedWith;
  }

  /** Creates the session and connects; resolves on `ready`, rejects when the connection ends first. */
  async open(): Promise<void> {
    this.grant = await createVoiceSession(this.options);
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (Socket === undefined)
      throw new Error('no WebSocket here: pass the `WebSocket` option (e.g. from the ws package)');
    const url = new URL(this.grant.connection_url);
    url.searchParams.set('token', this.grant.connection_token);
    url.searchParams.set('sample_rate', String(this.sampleRate));
    const socket = new Socket(url.toString());
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => this.closed(event.code, event.reason);
    socket.onerror = () => {
      // A close event always follows; it reports the end.
    };
    await new Promise<void>((resolve, reject) => {
      const offReady = this.on('ready', () => {
        offEnded();
        resolve();
      });
      const offEnded = this.on('ended', (ended) => {
        offReady();
        reject(
          new Error(
            `voice connection ended before ready: ${ended.reason}${ended.message ? ` (${ended.message})` : ''}`,
          ),
        );
      });
    });
  }

  /** Sends one microphone frame (PCM16 mono at `sampleRate`, e.g. 20 ms). Dropped unless the socket is open. */
  sendAudio(frame: Int16Array): void {
    if (this.socket?.readyState !== socketOpen) return;
    this.latency.microphoneFrame(frame);
    this.socket.send(frame); // a view sends only its own bytes: no copy
  }

  /** A typed turn: the agent answers it as if it had been spoken. */
  sendText(text: string): void {
    this.latency.textSent();
    this.sendMessage({ type: 'text', text });
  }

  /** Asks the server to end the session; resolves with the `ended` it answers (or a close after 5 s). */
  async end(): Promise<Ended> {
    if (this.endedWith !== null) return this.endedWith;
    const ended = this.once('ended');
    this.sendMessage({ type: 'end' });
    const timer = setTimeout(() => this.close(), 5000);
    try {
      return await ended;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connection without asking (the server ends the session as a hang-up). */
  close(): void {
    if (this.endedWith !== null) return;
    this.finish({ reason: 'client_closed', code: 1000, message: null });
    this.socket?.close(1000, 'client closed');
  }

  private sendMessage(message: ClientMessage): void {
    if (this.socket?.readyState === socketOpen) this.socket.send(JSON.stringify(message));
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') {
      const bytes = data instanceof ArrayBuffer ? data : ArrayBuffer.isView(data) ? data : null;
      if (bytes === null || this.endedWith !== null) return;
      const samples =
        bytes instanceof ArrayBuffer
          ? new Int16Array(bytes, 0, bytes.byteLength >> 1)
          : new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
      this.emit('audio', { samples, sampleRate: this.sampleRate, turn: this.turn });
      return;
    }
    const message = parseServerMessage(data);
    if (message === null) return;
    this.emit('message', message);
    const state = nextAgentState(this.state, message);
    if (flushingMessageTypes.includes(message.type)) {
      const raw = (message as UnknownServerMessage)['turn'];
      const turn = typeof raw === 'number' ? raw : this.turn;
      this.emit('flush', { cause: message.type, turn });
    }
    if (isKnown(message)) this.dispatch(message);
    else this.emit('unknown', message);
    if (state !== null && state !== this.state && this.endedWith === null) {
      this.state = state;
      this.emit('state', state);
    }
  }

  private dispatch(message: KnownServerMessage): void {
    switch (message.type) {
      case 'ready':
        return this.emit('ready', message);
      case 'transcript':
        this.latency.transcript(message.turn);
        return this.emit('transcript', message);
      case 'response':
        return this.emit('response', message);
      case 'audio_start': {
        this.turn = message.turn;
        this.emit('audio_start', message);
        const latency = this.latency.audioStart(message.turn);
        if (latency !== null) this.emit('latency', latency);
        return;
      }
      case 'audio_end':
        return this.emit('audio_end', message);
      case 'playback_paused':
        return this.emit('playback_paused', message);
      case 'playback_resumed':
        return this.emit('playback_resumed', message);
      case 'interrupted':
        return this.emit('interrupted', message);
      case 'error':
        this.lastError = message;
        return this.emit('error', message);
      case 'ended':
        return this.finish({ reason: message.reason, code: null, message: null });
    }
  }

  private closed(code: number, reason: string): void {
    if (this.endedWith !== null) {
      if (this.endedWith.code === null) this.endedWith.code = code;
      return;
    }
    const refused = code >= 4000 && code < 5000;
    this.finish({
      reason: refused ? 'refused' : 'connection_lost',
      code,
      message: this.lastError?.message ?? (reason === '' ? null : reason),
    });
  }

  private finish(ended: Ended): void {
    if (this.endedWith !== null) return;
    this.endedWith = ended;
    if (this.state !== 'ended') {
      this.state = 'ended';
      this.emit('state', 'ended');
    }
    this.emit('ended', ended);
  }
}

export type { EndedMessage };
