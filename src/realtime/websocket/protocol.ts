import { z } from 'zod';

/**
 * The built-in WebSocket media protocol (DESIGN.md "Voice transport"). Binary messages carry
 * PCM16LE mono audio at the rate the client declared (`?sample_rate=`, default 16000) in both
 * directions; text messages are JSON events.
 */

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string().trim().min(1).max(4000) }),
  z.strictObject({ type: z.literal('end') }),
]);

export type ClientMessage = z.infer<typeof clientMessageSchema>;

export type ServerEvent =
  | { type: 'ready'; session_id: string; sample_rate: number }
  | { type: 'transcript'; turn: number; text: string }
  /** The answer so far (`final: false`, one per sentence as it is produced), then whole (`final: true`). */
  | { type: 'response'; turn: number; text: string; final: boolean }
  | { type: 'audio_start'; turn: number; sample_rate: number }
  | { type: 'audio_end'; turn: number }
  /** The user started speaking over the agent: playback is paused (the client pauses its player, keeping its buffer). */
  | { type: 'playback_paused'; turn: number }
  /** It was not an interruption (an acknowledgement, a noise): playback goes on where it paused. */
  | { type: 'playback_resumed'; turn: number }
  /** A barge-in: the rest of the turn's audio is dropped (the client flushes its buffer). */
  | { type: 'interrupted'; turn: number }
  | { type: 'error'; code: string; message: string }
  /** Call control: hand the user over to `to` (null: the client decides); `ended` (`transferred`) follows. */
  | { type: 'transfer'; to: string | null }
  | { type: 'ended'; reason: string };

export const supportedSampleRates = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
