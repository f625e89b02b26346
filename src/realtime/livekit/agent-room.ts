import type { AudioFrame } from '@livekit/rtc-node';

/**
 * A LiveKit room as one job's agent participant uses it: the user's microphone in, the agent's
 * track out, text streams both ways, the agent's attributes, and why the room went away. The
 * production implementation is `connectRtcRoom` (@livekit/rtc-node); tests stand in for the room at
 * this interface with real `AudioFrame`s and a real `AudioSource`.
 */
export interface AgentRoom {
  readonly name: string;
  /** The agent's own identity in the room. */
  readonly identity: string;
  /**
   * Resolves with the identity of the first remote participant once they join, whether or not they
   * publish a microphone (a user may only type on `lk.chat`); null when the room goes away first.
   */
  firstParticipant(): Promise<string | null>;
  /**
   * Resolves with `identity`'s microphone, as mono frames at `sampleRate` (the native side
   * resamples), once they publish it; null when the room goes away first.
   */
  microphone(identity: string, sampleRate: number): Promise<UserAudio | null>;
  /** Publishes the agent's audio track, fed through the returned output. */
  publishAudio(sampleRate: number): Promise<AgentAudioOut>;
  /** A complete text stream on `topic` from the agent, or on behalf of `senderIdentity`. */
  sendText(
    text: string,
    options: { topic: string; attributes: Record<string, string>; senderIdentity?: string },
  ): Promise<void>;
  setAttributes(attributes: Record<string, string>): Promise<void>;
  /** Each complete incoming text stream on `topic`. */
  onText(topic: string, handler: (text: string, fromIdentity: string) => void): void;
  onParticipantLeft(handler: (identity: string) => void): void;
  /** The room connection ended: `room_closed` when the room was deleted or closed, else `connection_lost`. */
  onDisconnected(handler: (cause: RoomGone) => void): void;
  /** Leaves the room (idempotent). */
  disconnect(): Promise<void>;
}

export type RoomGone = 'room_closed' | 'connection_lost';

export interface UserAudio {
  readonly trackSid: string;
  readonly frames: AsyncIterable<AudioFrame>;
  close(): void;
}

/** What `AudioSource` offers the bridge (a real AudioSource satisfies it). */
export interface AgentAudioOut {
  readonly trackSid: string;
  captureFrame(frame: AudioFrame): Promise<void>;
  /** Drops audio queued but not yet played: barge-in. */
  clearQueue(): void;
}

/** Joins a room with a job's token. */
export type RoomConnector = (url: string, token: string) => Promise<AgentRoom>;
