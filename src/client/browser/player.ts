/** The agent's speech to the speakers through an AudioWorklet (`parley-playback`): pausable, flushable at once. */

export interface PlaybackStats {
  /** Audio played so far, in seconds. */
  playedSeconds: number;
  /** Audio buffered and not yet played, in seconds. */
  bufferedSeconds: number;
  /** Audio dropped because the buffer was full, in seconds. */
  droppedSeconds: number;
  /** Flushes so far (barge-in). */
  flushes: number;
}

export class AudioPlayer {
  readonly stats: PlaybackStats = { playedSeconds: 0, bufferedSeconds: 0, droppedSeconds: 0, flushes: 0 };
  private readonly listeners = new Set<(stats: PlaybackStats) => void>();

  private constructor(private readonly node: AudioWorkletNode) {
    node.port.onmessage = (
      event: MessageEvent<{ type: 'played'; samples: number; sampleRate: number; dropped: number; buffered: number }>,
    ) => {
      const m = event.data;
      this.stats.playedSeconds += m.samples / m.sampleRate;
      this.stats.droppedSeconds += m.dropped / m.sampleRate;
      this.stats.bufferedSeconds = m.buffered / m.sampleRate;
      for (const listener of this.listeners) listener(this.stats);
    };
  }

  /** A player on `context` (its worklet module loaded), connected to its speakers. */
  static create(context: AudioContext): AudioPlayer {
    const node = new AudioWorkletNode(context, 'parley-playback', {
      numberOfInputs: 0,
      numberOfOutputs: 1,
      outputChannelCount: [1],
    });
    node.connect(context.destination);
    return new AudioPlayer(node);
  }

  /** Queues one PCM16 frame at `sampleRate`. */
  play(samples: Int16Array, sampleRate: number): void {
    this.node.port.postMessage({ type: 'frame', samples, sampleRate });
  }

  /** Drops everything buffered, at once; a paused player plays again from the next frame. */
  flush(): void {
    this.stats.flushes++;
    this.stats.bufferedSeconds = 0;
    this.node.port.postMessage({ type: 'flush' });
  }

  /** Stops playing at once, keeping what is buffered (`playback_paused`). */
  pause(): void {
    this.node.port.postMessage({ type: 'pause' });
  }

  /** Plays on from where it paused (`playback_resumed`). */
  resume(): void {
    this.node.port.postMessage({ type: 'resume' });
  }

  /** Called about every 85 ms while audio plays, with the running totals. */
  onStats(listener: (stats: PlaybackStats) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.node.port.onmessage = null;
    this.node.disconnect();
  }
}
