/**
 * The SDK's two AudioWorklet processors, built into one module (served as
 * `/sdk/v1/audio-worklet.js`) and loaded with `audioWorklet.addModule`:
 * - `parley-capture`: microphone → PCM16 frames at the declared rate (linear resampling from the
 *   context's rate), posted to the main thread one frame at a time (the buffer is transferred).
 * - `parley-playback`: PCM16 frames → speakers through a ring buffer; `{type: 'flush'}` drops what
 *   is buffered at once (barge-in); it reports the samples it played.
 * This file runs in the AudioWorkletGlobalScope, not the page: it imports nothing.
 */

declare const sampleRate: number;
declare function registerProcessor(name: string, processor: unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}

interface CaptureOptions {
  targetRate: number;
  frameSamples: number;
}

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly step: number;
  private readonly frameSamples: number;
  private frame: Int16Array;
  private filled = 0;
  /** Position of the next output sample, in input samples from the start of the current block. */
  private position = 0;
  private previous = 0;

  constructor(options: { processorOptions: CaptureOptions }) {
    super(options);
    const { targetRate, frameSamples } = options.processorOptions;
    this.step = sampleRate / targetRate;
    this.frameSamples = frameSamples;
    this.frame = new Int16Array(frameSamples);
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (input === undefined || input.length === 0) return true;
    // Linear interpolation: output sample at `position` (in input samples; -1 is the last sample of
    // the previous block, kept in `previous`) lies between input[i] and input[i + 1].
    while (this.position < input.length - 1) {
      const i = Math.floor(this.position);
      const frac = this.position - i;
      const a = i < 0 ? this.previous : input[i]!;
      const b = input[i + 1]!;
      this.push(a + (b - a) * frac);
      this.position += this.step;
    }
    this.position -= input.length;
    this.previous = input[input.length - 1]!;
    return true;
  }

  private push(sample: number): void {
    const s = Math.max(-1, Math.min(1, sample));
    this.frame[this.filled++] = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
    if (this.filled === this.frameSamples) {
      this.port.postMessage(this.frame, [this.frame.buffer]);
      this.frame = new Int16Array(this.frameSamples);
      this.filled = 0;
    }
  }
}

type PlaybackMessage =
  | { type: 'frame'; samples: Int16Array; sampleRate: number }
  | { type: 'flush' }
  | { type: 'pause' }
  | { type: 'resume' };

/** Seconds of audio the playback ring buffer holds; more is dropped (the server paces its audio). */
const bufferSeconds = 10;
/** How often the played-sample count is reported, in render quanta (128 samples each). */
const reportEveryQuanta = 32;

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly ring = new Float32Array(Math.round(sampleRate * bufferSeconds));
  private readPos = 0;
  private size = 0;
  private played = 0;
  private dropped = 0;
  private quanta = 0;
  /** While paused the speakers get silence and the buffer is kept. */
  private paused = false;

  constructor(options?: unknown) {
    super(options);
    this.port.onmessage = (event: MessageEvent<PlaybackMessage>) => {
      const message = event.data;
      if (message.type === 'flush') {
        this.readPos = 0;
        this.size = 0;
        this.paused = false;
      } else if (message.type === 'pause') this.paused = true;
      else if (message.type === 'resume') this.paused = false;
      else this.enqueue(message.samples, message.sampleRate);
    };
  }

  private enqueue(samples: Int16Array, rate: number): void {
    const step = rate / sampleRate;
    const count = Math.floor(samples.length / step);
    for (let k = 0; k < count; k++) {
      if (this.size === this.ring.length) {
        this.dropped += count - k;
        return;
      }
      const x = k * step;
      const i = Math.floor(x);
      const frac = x - i;
      const a = samples[i]! / 0x8000;
      const b = (i + 1 < samples.length ? samples[i + 1]! : samples[i]!) / 0x8000;
      this.ring[(this.readPos + this.size) % this.ring.length] = a + (b - a) * frac;
      this.size++;
    }
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]?.[0];
    if (out !== undefined) {
      const n = this.paused ? 0 : Math.min(out.length, this.size);
      for (let k = 0; k < n; k++) out[k] = this.ring[(this.readPos + k) % this.ring.length]!;
      out.fill(0, n);
      for (let c = 1; c < (outputs[0]?.length ?? 0); c++) outputs[0]![c]!.set(out);
      this.readPos = (this.readPos + n) % this.ring.length;
      this.size -= n;
      this.played += n;
    }
    if (++this.quanta % reportEveryQuanta === 0 && this.played > 0) {
      this.port.postMessage({
        type: 'played',
        samples: this.played,
        sampleRate,
        dropped: this.dropped,
        buffered: this.size,
      });
      this.played = 0;
      this.dropped = 0;
    }
    return true;
  }
}

registerProcessor('parley-capture', CaptureProcessor);
registerProcessor('parley-playback', PlaybackProcessor);
