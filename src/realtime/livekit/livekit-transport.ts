import { AudioFrame as RtcAudioFrame } from '@livekit/rtc-node';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ReplaySubject, Subject } from 'rxjs';
import type { AudioFrame } from '../../audio/audio-frame.js';
import type { MediaTransport } from '../../sessions/transport/media-transport.js';
import { maxTypedTextChars, type ClientMessage, type ServerEvent } from '../../sessions/transport/messages.js';
import { sipTransferUri } from '../../actions/call-action.js';
import type { AgentAudioOut, AgentRoom, UserAudio } from './agent-room.js';

/** LiveKit's SIP transfer of one participant of a room (LivekitApi.transferSip). */
export type SipTransfer = (room: string, participantIdentity: string, to: string) => Promise<void>;

/** LiveKit's names, as its client components (agents playground, `useVoiceAssistant`) read them. */
export const lk = {
  transcriptionTopic: 'lk.transcription',
  chatTopic: 'lk.chat',
  final: 'lk.transcription_final',
  segmentId: 'lk.segment_id',
  trackId: 'lk.transcribed_track_id',
  agentState: 'lk.agent.state',
  agentName: 'lk.agent.name',
} as const;

export type AgentState = 'initializing' | 'listening' | 'thinking' | 'speaking';

/** The user a job serves: known from the moment they join; their microphone once they publish one. */
export interface RoomUser {
  readonly identity: string;
  /** Resolves when they publish a microphone (null: never, the room went away first). */
  readonly microphone: Promise<UserAudio | null>;
}

/**
 * A LiveKit room as a MediaTransport, so a VoiceSession runs on it exactly as on a WebSocket.
 * In: the user's microphone (mono, resampled natively to `inputSampleRate`) from the moment they
 * publish it, and typed `lk.chat` messages from the start. Out: the agent's speech through an
 * AudioSource track; transcripts and answers as `lk.transcription` text streams; the
 * conversation's state as the `lk.agent.state` attribute. The answer is captioned as it is
 * produced: each `response` (the answer so far) replaces the one before under the turn's segment
 * id, `lk.transcription_final` only on the whole answer (or the part spoken when barge-in cut it).
 * Barge-in (`interrupted`) clears the AudioSource's queue, so queued speech is never played.
 */
export class LivekitTransport implements MediaTransport {
  readonly kind = 'livekit';
  private readonly audio = new Subject<AudioFrame>();
  private readonly messages = new Subject<ClientMessage>();
  private readonly closed = new ReplaySubject<void>(1);
  readonly audio$ = this.audio.asObservable();
  readonly messages$ = this.messages.asObservable();
  readonly closed$ = this.closed.asObservable();
  private finished = false;
  /** Frames handed to the AudioSource one after another; a barge-in starts a new generation. */
  private outTail: Promise<void> = Promise.resolve();
  private generation = 0;
  private state: AgentState | null = null;
  private transferring: Promise<boolean> | null = null;
  /** The microphone, once published (user captions name its track). */
  private mic: UserAudio | null = null;
  /** The answer being captioned: its turn, segment and text so far, until its final caption. */
  private answer: { turn: number; segmentId: string; text: string } | null = null;
  /** Captions go out one after another, so a later text never overtakes an earlier one. */
  private captionTail: Promise<void> = Promise.resolve();

  constructor(
    private readonly room: AgentRoom,
    private readonly user: RoomUser,
    private readonly out: AgentAudioOut,
    readonly inputSampleRate: number,
    readonly outputSampleRate: number,
    private readonly logger: Logger,
    /** How a transfer is done; absent, `transfer` fails (no LiveKit API here). */
    private readonly sipTransfer?: SipTransfer | undefined,
  ) {
    room.onText(lk.chatTopic, (text, from) => {
      const trimmed = text.trim();
      if (this.finished || from !== user.identity || trimmed === '') return;
      this.messages.next({ type: 'text', text: trimmed.slice(0, maxTypedTextChars) });
    });
    void this.pump();
  }

  /** The user on the other end (their identity and microphone track). */
  get userIdentity(): string {
    return this.user.identity;
  }

  send(event: ServerEvent): void {
    if (this.finished) return;
    switch (event.type) {
      case 'ready':
      case 'audio_end':
        this.setState('listening');
        break;
      case 'transcript':
        this.caption(event.text, { final: true, trackSid: this.mic?.trackSid, sender: this.user.identity });
        this.setState('thinking');
        break;
      case 'audio_start':
        this.setState('speaking');
        break;
      case 'response': {
        const answer =
          this.answer?.turn === event.turn ? this.answer : { turn: event.turn, segmentId: segmentId(), text: '' };
        answer.text = event.text;
        this.answer = event.final ? null : answer;
        this.caption(event.text, { final: event.final, trackSid: this.out.trackSid, segmentId: answer.segmentId });
        break;
      }
      case 'interrupted': {
        this.generation++;
        this.out.clearQueue();
        // The caption of a cut answer ends with what it had reached (the last caption sent).
        const cut = this.answer;
        this.answer = null;
        if (cut !== null && cut.turn === event.turn)
          this.caption(cut.text, { final: true, trackSid: this.out.trackSid, segmentId: cut.segmentId });
        this.setState('listening');
        break;
      }
      case 'playback_paused':
      case 'playback_resumed':
        // The playout stops and resumes sending frames itself; what the AudioSource held when it
        // paused was dropped (dropQueuedAudio) and is sent again on resume.
        break;
      case 'error':
        this.logger.warn({ room: this.room.name, code: event.code, reason: event.reason }, event.message);
        break;
      case 'ended':
      case 'transfer':
        break;
    }
  }

  /** AudioSource has no pause: on a pause its queue (and the frames on their way to it) is dropped. */
  dropQueuedAudio(): void {
    this.generation++;
    this.out.clearQueue();
  }

  sendAudio(samples: Int16Array): void {
    if (this.finished || samples.length === 0) return;
    // rtc-node hands the frame's whole ArrayBuffer to the native side from offset 0, so a view into
    // a larger buffer (how the playout slices speech) must be copied into a frame of its own.
    const frame = RtcAudioFrame.create(this.outputSampleRate, 1, samples.length);
    frame.data.set(samples);
    const generation = this.generation;
    this.outTail = this.outTail.then(() =>
      generation === this.generation && !this.finished
        ? this.out.captureFrame(frame).catch((err: unknown) => this.logger.warn({ err }, 'audio frame dropped'))
        : undefined,
    );
  }

  /**
   * Transfers the caller (a SIP participant) with LiveKit's SIP transfer; a bare phone number is
   * sent as a `tel:` URI. Rejects when there is no destination or LiveKit refuses (e.g. the user is
   * not a SIP participant).
   */
  transfer(to: string | null): Promise<void> {
    if (to === null)
      return Promise.reject(new Error('no transfer destination: set the agent’s transfer_to or the action’s `to`'));
    if (this.sipTransfer === undefined) return Promise.reject(new Error('LiveKit SIP transfer is not available'));
    const run = this.sipTransfer(this.room.name, this.user.identity, sipTransferUri(to));
    // the caller gets the rejection through `run`; this only notes whether the transfer went through
    this.transferring = run.then(
      () => true,
      () => false,
    );
    return run;
  }

  /** A transfer under way (or done): resolves true when it succeeded; null when none was started. */
  get transferOutcome(): Promise<boolean> | null {
    return this.transferring;
  }

  /** The session is over (either side): stops reading the microphone; the job leaves the room. */
  close(): void {
    if (this.finished) return;
    this.finished = true;
    this.mic?.close();
    this.audio.complete();
    this.messages.complete();
    this.closed.next();
    this.closed.complete();
  }

  private async pump(): Promise<void> {
    const mic = await this.user.microphone;
    if (mic === null) return;
    if (this.finished) return mic.close();
    this.mic = mic;
    try {
      for await (const frame of mic.frames) {
        if (this.finished) break;
        // Mono as asked of the stream; the pipeline's frames are views, so no copy here.
        this.audio.next({ samples: frame.data.subarray(0, frame.samplesPerChannel), sampleRate: frame.sampleRate });
      }
    } catch (err) {
      if (!this.finished) this.logger.warn({ err, room: this.room.name }, 'microphone stream failed');
    }
  }

  private setState(state: AgentState): void {
    if (this.state === state) return;
    this.state = state;
    this.room
      .setAttributes({ [lk.agentState]: state })
      .catch((err: unknown) => this.logger.debug({ err }, 'agent state not published'));
  }

  /**
   * A transcription segment on `lk.transcription`: from the agent, or on behalf of `sender`; a
   * new segment unless `segmentId` continues one (LiveKit's clients replace its text).
   */
  private caption(
    text: string,
    o: { final: boolean; trackSid: string | undefined; sender?: string; segmentId?: string },
  ): void {
    const attributes: Record<string, string> = {
      [lk.final]: String(o.final),
      [lk.segmentId]: o.segmentId ?? segmentId(),
    };
    if (o.trackSid !== undefined) attributes[lk.trackId] = o.trackSid;
    const options = {
      topic: lk.transcriptionTopic,
      attributes,
      ...(o.sender === undefined ? {} : { senderIdentity: o.sender }),
    };
    this.captionTail = this.captionTail.then(() =>
      this.room.sendText(text, options).catch((err: unknown) => this.logger.debug({ err }, 'transcription not sent')),
    );
  }
}

function segmentId(): string {
  return `SG_${randomBytes(6).toString('hex')}`;
}
