import type { Keys } from '../keys.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const setRecordingSize = new Script('set_recording_size');

/** The conversation hash's fields about its call recording (read into `recording` by conversation-records.ts). */
export const recordingFields = {
  startedAt: 'recording_started_at',
  channels: 'recording_channels',
  bytes: 'recording_bytes',
} as const;

/**
 * What a conversation's record says of its call recording, kept by the recordings module: when it
 * started and its channels (as it opens), its size (once the call is over), nothing (once the
 * recording is gone: retention, a recording that never got a file).
 */
export class ConversationRecordingRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** When the conversation's call recording started (its sample 0), to place messages in it; null when unknown. */
  async startedAt(conversationId: string): Promise<string | null> {
    return (await this.redis.hGet(this.keys.conversation(conversationId), recordingFields.startedAt)) ?? null;
  }

  /** The recording opened (its session is live, so the conversation exists). */
  async started(conversationId: string, at: string, channels: number): Promise<void> {
    await this.redis.hSet(this.keys.conversation(conversationId), {
      [recordingFields.startedAt]: at,
      [recordingFields.channels]: String(channels),
    });
  }

  /** The recording is complete: `bytes`, the WAV file's size. */
  async completed(conversationId: string, bytes: number): Promise<void> {
    await setRecordingSize.run(this.redis, [this.keys.conversation(conversationId)], [bytes]);
  }

  /** The recording is gone (or never had a file): the record says it has none. */
  async gone(conversationId: string): Promise<void> {
    await this.redis.hDel(this.keys.conversation(conversationId), Object.values(recordingFields));
  }
}
