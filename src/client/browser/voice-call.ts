import { VoiceConnection, type VoiceConnectionOptions } from '../voice-connection.js';
import { Microphone } from './microphone.js';
import { AudioPlayer } from './player.js';

export interface VoiceCallOptions extends VoiceConnectionOptions {
  /** The SDK's worklet module. Default: `<baseUrl>/sdk/v1/audio-worklet.js`. */
  workletUrl?: string | undefined;
  /** getUserMedia audio constraints (see Microphone). */
  microphone?: MediaTrackConstraints | undefined;
  /** Called with the connection before it opens, to subscribe to every event from the first. */
  onConnection?: ((connection: VoiceConnection) => void) | undefined;
}

/**
 * A voice call from a web page: the microphone streams to the agent, the agent's speech plays
 * through the speakers. Playback pauses when the user talks over the agent (`playback_paused`),
 * then resumes where it stopped (`playback_resumed`) or is flushed at once on barge-in
 * (`interrupted`). When the session ends (for any reason, reported by `connection.on('ended')`) the microphone is released.
 * Start it from a user gesture (a click), so the browser lets audio play.
 */
export class VoiceCall {
  private constructor(
    readonly connection: VoiceConnection,
    readonly player: AudioPlayer,
    private readonly context: AudioContext,
    private microphone: Microphone | null,
  ) {}

  static async start(options: VoiceCallOptions): Promise<VoiceCall> {
    const context = new AudioContext();
    let microphone: Microphone | null = null;
    try {
      await context.audioWorklet.addModule(
        options.workletUrl ?? `${options.baseUrl.replace(/\/+$/, '')}/sdk/v1/audio-worklet.js`,
      );
      if (context.state === 'suspended') await context.resume();
      const connection = new VoiceConnection(options);
      const player = AudioPlayer.create(context);
      connection.on('audio', (audio) => player.play(audio.samples, audio.sampleRate));
      connection.on('flush', () => player.flush());
      connection.on('playback_paused', () => player.pause());
      connection.on('playback_resumed', () => player.resume());
      options.onConnection?.(connection);
      const call = new VoiceCall(connection, player, context, null);
      connection.on('ended', () => call.release());
      // The microphone first (the permission prompt), then the session: no frame is lost to the prompt.
      microphone = await Microphone.start({
        context,
        sampleRate: connection.sampleRate,
        onFrame: (frame) => connection.sendAudio(frame),
        constraints: options.microphone,
      });
      call.microphone = microphone;
      await connection.open();
      return call;
    } catch (err) {
      microphone?.stop();
      await context.close().catch(() => undefined); // the original error is what the caller needs
      throw err;
    }
  }

  /** Ends the session (the server answers `ended`) and releases the microphone and speakers. */
  async end(): Promise<void> {
    await this.connection.end();
    this.release();
  }

  private release(): void {
    this.microphone?.stop();
    this.microphone = null;
    this.player.close();
    if (this.context.state !== 'closed') void this.context.close().catch(() => undefined); // already closing
  }
}
