/** The browser microphone as PCM16 frames: getUserMedia → AudioWorklet (`parley-capture`). */

export interface MicrophoneOptions {
  /** A context whose worklet module (`/sdk/v1/audio-worklet.js`) is loaded. */
  context: AudioContext;
  /** Rate of the frames handed out (the rate declared to Parley). */
  sampleRate: number;
  /** Frame length in ms. Default 20. */
  frameMs?: number | undefined;
  onFrame: (frame: Int16Array) => void;
  /** getUserMedia audio constraints; default mono with echo cancellation, noise suppression and gain control. */
  constraints?: MediaTrackConstraints | undefined;
}

export class Microphone {
  private constructor(
    private readonly stream: MediaStream,
    private readonly source: MediaStreamAudioSourceNode,
    private readonly node: AudioWorkletNode,
  ) {}

  /** Asks for the microphone (the browser may prompt) and starts handing out frames. */
  static async start(options: MicrophoneOptions): Promise<Microphone> {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: options.constraints ?? {
        channelCount: 1,
        echoCancellation: true,
        noiseSuppression: true,
        autoGainControl: true,
      },
    });
    const { context } = options;
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, 'parley-capture', {
      numberOfInputs: 1,
      numberOfOutputs: 0,
      channelCount: 1,
      channelCountMode: 'explicit',
      processorOptions: {
        targetRate: options.sampleRate,
        frameSamples: Math.round((options.sampleRate * (options.frameMs ?? 20)) / 1000),
      },
    });
    node.port.onmessage = (event: MessageEvent<Int16Array>) => options.onFrame(event.data);
    source.connect(node);
    return new Microphone(stream, source, node);
  }

  /** Stops capturing and releases the microphone. */
  stop(): void {
    this.node.port.onmessage = null;
    this.source.disconnect();
    for (const track of this.stream.getTracks()) track.stop();
  }
}
