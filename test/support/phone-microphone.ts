/**
 * A phone's microphone on a line that hears its own loudspeaker (a speakerphone, no echo
 * cancelling), for the fake carrier (fake-carrier.ts): on a real-time clock, every 20 ms the phone
 * plays 160 samples of what it was sent and sends 160 of what its microphone heard: the echo of what
 * it played `delayMs` earlier, `gainDb` quieter, over white noise, and the caller's speech when
 * there is some. As Twilio does, it streams all call long, silence included.
 */
export interface LineEcho {
  delayMs: number;
  /** Negative: the echo is this much quieter than what was played. */
  gainDb: number;
  /** The line's noise level; default -60 dBFS. */
  noiseDbfs?: number;
}

export interface MicrophoneHooks {
  /** The phone played this many samples of what it holds (their marks may be echoed). */
  played(samples: number): void;
  /** The 160 samples the microphone heard this tick. */
  send(heard: Int16Array): void;
  /** The first frame of a `say` over `voicedLevel` goes out now. */
  voiced(): void;
}

const tickMs = 20;
const tickSamples = 160;

export class PhoneMicrophone {
  private readonly delay: Float32Array;
  private at = 0;
  private readonly gain: number;
  private readonly noise: number;
  private seed = 12345;
  private readonly speech: { samples: Int16Array; at: number; voiced: boolean; done: () => void }[] = [];
  /** What the phone was sent and has not played yet. */
  private readonly playing: Int16Array[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    echo: LineEcho,
    private readonly hooks: MicrophoneHooks,
    private readonly voicedLevel: number,
  ) {
    this.delay = new Float32Array(Math.max(1, Math.round(echo.delayMs * 8)));
    this.gain = 10 ** (echo.gainDb / 20);
    // uniform white noise of this RMS: amplitude √3 × RMS
    this.noise = 32768 * 10 ** ((echo.noiseDbfs ?? -60) / 20) * Math.sqrt(3);
  }

  /** Starts the clock (after the stream's `start`). */
  start(): void {
    if (this.running) return;
    this.running = true;
    const t0 = performance.now();
    let ticks = 0;
    const run = () => {
      for (; this.running && t0 + ticks * tickMs <= performance.now(); ticks++) this.tick();
      if (this.running) this.timer = setTimeout(run, t0 + ticks * tickMs - performance.now());
    };
    run();
  }

  /** Stops the clock; speech not yet sent is dropped (its `say` resolves). */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    for (const s of this.speech.splice(0)) s.done();
  }

  /** The caller says 8 kHz `samples` over whatever the line hears; resolves once all are sent. */
  say(samples: Int16Array): Promise<void> {
    return new Promise((done) => this.speech.push({ samples, at: 0, voiced: false, done }));
  }

  /** Audio the phone was sent: it plays after what it holds. */
  queue(samples: Int16Array): void {
    this.playing.push(samples);
  }

  /** `clear`: the phone drops what it holds. */
  drop(): void {
    this.playing.length = 0;
  }

  /** The next 160 samples held (silence past them). */
  private playNext(): Int16Array {
    const played = new Int16Array(tickSamples);
    let n = 0;
    while (n < tickSamples && this.playing.length > 0) {
      const head = this.playing[0]!;
      const take = Math.min(tickSamples - n, head.length);
      played.set(head.subarray(0, take), n);
      n += take;
      if (take === head.length) this.playing.shift();
      else this.playing[0] = head.subarray(take);
    }
    this.hooks.played(tickSamples);
    return played;
  }

  private tick(): void {
    const played = this.playNext();
    const heard = new Int16Array(tickSamples);
    const speech = this.speech[0];
    const part = speech?.samples.subarray(speech.at, speech.at + tickSamples);
    if (speech !== undefined && !speech.voiced && part!.some((s) => Math.abs(s) > this.voicedLevel)) {
      speech.voiced = true;
      this.hooks.voiced();
    }
    for (let i = 0; i < tickSamples; i++) {
      const echo = this.delay[this.at]!;
      this.delay[this.at] = played[i]! * this.gain;
      this.at = (this.at + 1) % this.delay.length;
      this.seed = (this.seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (this.seed / 0x7fffffff - 0.5) * 2 * this.noise;
      heard[i] = Math.max(-32768, Math.min(32767, Math.round(echo + noise + (part?.[i] ?? 0))));
    }
    if (speech !== undefined) {
      speech.at += tickSamples;
      if (speech.at >= speech.samples.length) {
        this.speech.shift();
        speech.done();
      }
    }
    this.hooks.send(heard);
  }
}
