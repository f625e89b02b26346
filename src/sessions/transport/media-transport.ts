import type { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/audio-frame.js';
import type { ClientMessage, ServerEvent } from './messages.js';

/**
 * The port a voice session runs on: one live media connection, whatever carries it (Parley's own
 * WebSocket endpoint, realtime/websocket; a LiveKit room, realtime/livekit; a phone call's Twilio
 * Media Stream, realtime/telephony). A voice session reads
 * audio and client messages from it and writes events and audio back; each transport maps the
 * messages (./messages.ts) to its own wire.
 */
export interface MediaTransport {
  readonly kind: 'websocket' | 'livekit' | 'twilio';
  /** Rate of incoming audio frames. */
  readonly inputSampleRate: number;
  /** Rate `sendAudio` expects. */
  readonly outputSampleRate: number;
  readonly audio$: Observable<AudioFrame>;
  /**
   * The caller's audio exactly as it arrived, where `audio$` hands on a processed copy (a phone
   * call's echo guard mutes the agent's echo and holds onsets back): what a recording keeps.
   * Absent where `audio$` is already that.
   */
  readonly arrivedAudio$?: Observable<AudioFrame>;
  readonly messages$: Observable<ClientMessage>;
  /** Emits once and completes when the connection is gone (either side closed it). */
  readonly closed$: Observable<void>;
  send(event: ServerEvent): void;
  sendAudio(samples: Int16Array): void;
  /**
   * A sink that cannot pause drops the audio it holds (sent, not yet played): the playout sends it
   * again on resume. Absent where the client pauses its own player (WebSocket: `playback_paused`).
   */
  dropQueuedAudio?(): void;
  /**
   * Milliseconds of the current answer's audio (since its `audio_start`) the user has actually
   * heard, where the carrier reports playback (a phone call's echoed marks): a cut answer's record
   * takes it rather than the time since its first frame. Absent elsewhere.
   */
  answerHeardMs?(): number;
  close(code?: number, reason?: string): void;
  /**
   * Hands the user over to `to` (call control `transfer`): a SIP transfer on LiveKit, a `transfer`
   * message to a WebSocket client. Rejects when it could not be done (the session goes on).
   */
  transfer(to: string | null): Promise<void>;
}
