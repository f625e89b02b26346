import {
  AudioSource,
  AudioStream,
  DisconnectReason,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  type RemoteParticipant,
  type RemoteTrack,
  type RemoteTrackPublication,
} from '@livekit/rtc-node';
import type { AgentAudioOut, AgentRoom, RoomConnector, RoomGone, UserAudio } from './agent-room.js';

/** Disconnect reasons that mean the room itself is gone, not the agent's connection to it. */
const roomEnded = new Set<DisconnectReason>([DisconnectReason.ROOM_DELETED, DisconnectReason.ROOM_CLOSED]);

/** Joins a LiveKit room through @livekit/rtc-node (the production `RoomConnector`). */
export const connectRtcRoom: RoomConnector = async (url, token) => {
  const room = new Room();
  await room.connect(url, token, { autoSubscribe: true, dynacast: false });
  return new RtcAgentRoom(room);
};

class RtcAgentRoom implements AgentRoom {
  private source: AudioSource | undefined;
  private track: LocalAudioTrack | undefined;
  private left = false;

  constructor(private readonly room: Room) {}

  get name(): string {
    return this.room.name ?? '';
  }

  get identity(): string {
    return this.room.localParticipant?.identity ?? '';
  }

  firstParticipant(): Promise<string | null> {
    const present = this.room.remoteParticipants.values().next();
    if (present.done !== true) return Promise.resolve(present.value.identity);
    return this.until<string>((emit) => {
      const onJoin = (participant: RemoteParticipant) => emit(participant.identity);
      this.room.on(RoomEvent.ParticipantConnected, onJoin);
      return () => this.room.off(RoomEvent.ParticipantConnected, onJoin);
    });
  }

  microphone(identity: string, sampleRate: number): Promise<UserAudio | null> {
    const wrap = (track: RemoteTrack): UserAudio => {
      const stream = new AudioStream(track, { sampleRate, numChannels: 1 });
      return {
        trackSid: track.sid ?? '',
        frames: stream,
        close: () => void stream.cancel().catch(() => undefined), // already closed with the room
      };
    };
    for (const participant of this.room.remoteParticipants.values()) {
      if (participant.identity !== identity) continue;
      for (const pub of participant.trackPublications.values())
        if (isMicrophone(pub) && pub.track !== undefined) return Promise.resolve(wrap(pub.track));
    }
    return this.until<UserAudio>((emit) => {
      const onTrack = (track: RemoteTrack, pub: RemoteTrackPublication, participant: RemoteParticipant) => {
        if (participant.identity === identity && isMicrophone(pub)) emit(wrap(track));
      };
      this.room.on(RoomEvent.TrackSubscribed, onTrack);
      return () => this.room.off(RoomEvent.TrackSubscribed, onTrack);
    });
  }

  /** The first value `listen` emits (it returns its unsubscribe); null when the room disconnects first. */
  private until<T>(listen: (emit: (value: T) => void) => () => void): Promise<T | null> {
    return new Promise((resolve) => {
      const settle = (value: T | null) => {
        unlisten();
        this.room.off(RoomEvent.Disconnected, onGone);
        resolve(value);
      };
      const onGone = () => settle(null);
      const unlisten = listen(settle);
      this.room.once(RoomEvent.Disconnected, onGone);
    });
  }

  async publishAudio(sampleRate: number): Promise<AgentAudioOut> {
    const source = new AudioSource(sampleRate, 1);
    const track = LocalAudioTrack.createAudioTrack('parley-agent', source);
    const publication = await this.local().publishTrack(
      track,
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );
    this.source = source;
    this.track = track;
    return {
      trackSid: publication.sid ?? '',
      captureFrame: (frame) => source.captureFrame(frame),
      clearQueue: () => source.clearQueue(),
    };
  }

  async sendText(
    text: string,
    options: { topic: string; attributes: Record<string, string>; senderIdentity?: string },
  ): Promise<void> {
    const writer = await this.local().streamText(options);
    await writer.write(text);
    await writer.close();
  }

  setAttributes(attributes: Record<string, string>): Promise<void> {
    return this.local().setAttributes(attributes);
  }

  onText(topic: string, handler: (text: string, fromIdentity: string) => void): void {
    this.room.registerTextStreamHandler(topic, (reader, participant) => {
      reader.readAll().then(
        (text) => handler(text, participant.identity),
        () => undefined, // a stream cut off mid-way carries no message
      );
    });
  }

  onParticipantLeft(handler: (identity: string) => void): void {
    this.room.on(RoomEvent.ParticipantDisconnected, (participant) => handler(participant.identity));
  }

  onDisconnected(handler: (cause: RoomGone) => void): void {
    this.room.on(RoomEvent.Disconnected, (reason) => {
      if (!this.left) handler(roomEnded.has(reason) ? 'room_closed' : 'connection_lost');
    });
  }

  async disconnect(): Promise<void> {
    if (this.left) return;
    this.left = true;
    await this.track?.close(true).catch(() => undefined); // the room is going anyway
    if (this.track === undefined) await this.source?.close();
    await this.room.disconnect();
  }

  private local() {
    const local = this.room.localParticipant;
    if (local === undefined) throw new Error('not connected to the room');
    return local;
  }
}

function isMicrophone(pub: RemoteTrackPublication): boolean {
  return pub.kind === TrackKind.KIND_AUDIO && pub.source !== TrackSource.SOURCE_SCREENSHARE_AUDIO;
}
