import { AudioSource, type AudioFrame } from '@livekit/rtc-node';
import { TokenVerifier, type ClaimGrants } from 'livekit-server-sdk';
import type {
  AgentAudioOut,
  AgentRoom,
  RoomConnector,
  RoomGone,
  UserAudio,
} from '../../../src/realtime/livekit/agent-room.js';

/**
 * LiveKit rooms stood in for at Parley's `AgentRoom` interface (rtc-node's Room needs a real
 * LiveKit server). `connect` verifies the job token like LiveKit would and opens a FakeRoom the
 * test then drives: a user joins and speaks real rtc-node `AudioFrame`s, types on `lk.chat`,
 * leaves; the room closes or the connection drops. What the agent sends is recorded: audio frames
 * (through a real `AudioSource` when asked), text streams, attributes.
 */
export class FakeRooms {
  readonly rooms = new Map<string, FakeRoom>();
  private readonly waiters = new Map<string, ((room: FakeRoom) => void)[]>();

  constructor(
    private readonly apiKey: string,
    private readonly apiSecret: string,
    private readonly options: { realAudioSource?: boolean } = {},
  ) {}

  /** When set, the next join fails with this message (LiveKit unreachable, a bad token). */
  failNextJoin: string | null = null;

  readonly connect: RoomConnector = async (url, token) => {
    const failure = this.failNextJoin;
    this.failNextJoin = null;
    if (failure !== null) throw new Error(failure);
    const claims = await new TokenVerifier(this.apiKey, this.apiSecret).verify(token);
    const name = claims.video?.room;
    if (claims.video?.roomJoin !== true || name === undefined || claims.sub === undefined)
      throw new Error('token does not grant joining a room');
    const room = new FakeRoom(name, claims.sub, url, claims, this.options.realAudioSource === true);
    this.rooms.set(name, room);
    for (const resolve of this.waiters.get(name) ?? []) resolve(room);
    this.waiters.delete(name);
    return room;
  };

  /** The room the agent joined under `name` (waits for the join). */
  joined(name: string): Promise<FakeRoom> {
    const room = this.rooms.get(name);
    if (room !== undefined) return Promise.resolve(room);
    return new Promise((resolve) => this.waiters.set(name, [...(this.waiters.get(name) ?? []), resolve]));
  }
}

export interface SentText {
  /** performance.now() when the agent sent it. */
  at: number;
  topic: string;
  text: string;
  attributes: Record<string, string>;
  senderIdentity: string | undefined;
}

export class FakeRoom implements AgentRoom {
  readonly attributes: Record<string, string> = {};
  /** Every `lk.agent.state` set, in order. */
  readonly states: string[] = [];
  readonly texts: SentText[] = [];
  readonly out: RecordingAudioOut;
  disconnected = false;
  private user: { identity: string; trackSid: string; frames: FrameQueue | null } | null = null;
  private userWaiter: ((identity: string | null) => void) | null = null;
  private micWaiter: ((mic: UserAudio | null) => void) | null = null;
  private readonly textHandlers = new Map<string, (text: string, from: string) => void>();
  private readonly leftHandlers: ((identity: string) => void)[] = [];
  private readonly goneHandlers: ((cause: RoomGone) => void)[] = [];

  constructor(
    readonly name: string,
    readonly identity: string,
    readonly url: string,
    readonly claims: ClaimGrants,
    realAudioSource: boolean,
  ) {
    this.out = new RecordingAudioOut(realAudioSource);
  }

  // ---- what the test does ----

  /** A user joins and publishes a microphone; push frames into the returned queue. */
  userJoins(identity: string): FrameQueue {
    this.userJoinsWithoutMicrophone(identity);
    return this.publishMicrophone();
  }

  /** A user joins without publishing a microphone (they may type on `lk.chat`, or publish later). */
  userJoinsWithoutMicrophone(identity: string): void {
    this.user = { identity, trackSid: `TR_${identity}`, frames: null };
    this.userWaiter?.(identity);
    this.userWaiter = null;
  }

  /** The user in the room publishes their microphone; push frames into the returned queue. */
  publishMicrophone(): FrameQueue {
    const user = this.user!;
    user.frames = new FrameQueue();
    this.micWaiter?.(this.audioOf(user.trackSid, user.frames));
    this.micWaiter = null;
    return user.frames;
  }

  userLeaves(): void {
    const user = this.user;
    if (user === null) return;
    user.frames?.end();
    for (const handler of this.leftHandlers) handler(user.identity);
  }

  /** Types a message in the room's chat (`lk.chat`). */
  chat(text: string, from = this.user?.identity ?? 'someone'): void {
    this.textHandlers.get('lk.chat')?.(text, from);
  }

  /** The room is closed by LiveKit, or the agent's connection to it is lost. */
  gone(cause: RoomGone): void {
    this.user?.frames?.end();
    this.userWaiter?.(null);
    this.micWaiter?.(null);
    for (const handler of this.goneHandlers) handler(cause);
  }

  captions(): SentText[] {
    return this.texts.filter((t) => t.topic === 'lk.transcription');
  }

  // ---- AgentRoom ----

  firstParticipant(): Promise<string | null> {
    if (this.user !== null) return Promise.resolve(this.user.identity);
    return new Promise((resolve) => (this.userWaiter = resolve));
  }

  microphone(identity: string, sampleRate: number): Promise<UserAudio | null> {
    void sampleRate; // frames are produced at the rate the test chose
    const user = this.user;
    if (user?.identity === identity && user.frames !== null)
      return Promise.resolve(this.audioOf(user.trackSid, user.frames));
    return new Promise((resolve) => (this.micWaiter = resolve));
  }

  async publishAudio(sampleRate: number): Promise<AgentAudioOut> {
    this.out.open(sampleRate);
    return this.out;
  }

  async sendText(
    text: string,
    options: { topic: string; attributes: Record<string, string>; senderIdentity?: string },
  ): Promise<void> {
    this.texts.push({
      at: performance.now(),
      text,
      topic: options.topic,
      attributes: options.attributes,
      senderIdentity: options.senderIdentity,
    });
  }

  async setAttributes(attributes: Record<string, string>): Promise<void> {
    Object.assign(this.attributes, attributes);
    const state = attributes['lk.agent.state'];
    if (state !== undefined) this.states.push(state);
  }

  onText(topic: string, handler: (text: string, fromIdentity: string) => void): void {
    this.textHandlers.set(topic, handler);
  }

  onParticipantLeft(handler: (identity: string) => void): void {
    this.leftHandlers.push(handler);
  }

  onDisconnected(handler: (cause: RoomGone) => void): void {
    this.goneHandlers.push(handler);
  }

  async disconnect(): Promise<void> {
    this.disconnected = true;
    this.user?.frames?.end();
    this.userWaiter?.(null);
    this.userWaiter = null;
    this.micWaiter?.(null);
    this.micWaiter = null;
    await this.out.close();
  }

  private audioOf(trackSid: string, frames: FrameQueue): UserAudio {
    return { trackSid, frames, close: () => frames.end() };
  }
}

/** The agent's track: records every frame and every `clearQueue`; optionally through a real AudioSource. */
export class RecordingAudioOut implements AgentAudioOut {
  readonly trackSid = 'TR_agent';
  readonly frames: AudioFrame[] = [];
  /** performance.now() of each frame captured, and of each clearQueue. */
  readonly frameTimes: number[] = [];
  readonly clearTimes: number[] = [];
  clears = 0;
  /** Frames captured before each `clearQueue`, so a test can see audio was queued when barge-in came. */
  readonly queuedAtClear: number[] = [];
  source: AudioSource | undefined;

  constructor(private readonly real: boolean) {}

  open(sampleRate: number): void {
    if (this.real) this.source = new AudioSource(sampleRate, 1, 1000);
  }

  get samples(): number {
    return this.frames.reduce((n, f) => n + f.samplesPerChannel, 0);
  }

  async captureFrame(frame: AudioFrame): Promise<void> {
    this.frames.push(frame);
    this.frameTimes.push(performance.now());
    await this.source?.captureFrame(frame);
  }

  clearQueue(): void {
    this.clears++;
    this.clearTimes.push(performance.now());
    this.queuedAtClear.push(this.source?.queuedDuration ?? 0);
    this.source?.clearQueue();
  }

  async close(): Promise<void> {
    const source = this.source;
    this.source = undefined;
    await source?.close();
  }
}

/** An async iterable of frames the test pushes into. */
export class FrameQueue implements AsyncIterable<AudioFrame> {
  private readonly items: AudioFrame[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  push(frame: AudioFrame): void {
    if (this.ended) return;
    this.items.push(frame);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AudioFrame> {
    for (;;) {
      const next = this.items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}
