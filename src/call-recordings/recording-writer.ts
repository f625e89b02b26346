import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { AudioFrame } from '../audio/audio-frame.js';
import { Resampler } from '../audio/resampler.js';
import type { PlayoutTap } from '../pipeline/reply/playout.js';
import { wavHeader, wavHeaderBytes } from './wav-file.js';

/** Every recording is PCM16 at this rate: left channel the caller, right channel the agent. */
export const recordingRate = 16_000;

export interface RecordingWriterOptions {
  path: string;
  /** `caller_only`: one channel, the caller's. */
  callerOnly: boolean;
  /** Rate of the caller's frames (the transport's input rate) and of the agent's (its output rate). */
  callerRate: number;
  agentRate: number;
  /** The session's clock, in ms (the same clock for both channels). */
  now: () => number;
  logger: Logger;
  /** How often what is final is written and the header's sizes patched (default 1 s). */
  flushMs?: number | undefined;
  /** Called once the file is complete and closed (its size noted, the bucket's upload started); `close` waits for it. */
  onClosed?: (() => Promise<void> | void) | undefined;
}

/** How far a frame queued behind playing audio may seem to be from its end and still follow it. */
const contiguousSamples = (20 * recordingRate) / 1000;

/** Audio held in memory ahead of what is written: the agent's lead and caller frames arriving early. */
const windowSamples = 8 * recordingRate;

/**
 * One session's recording, written as it happens. Each channel is placed on one timeline, sample
 * 0 being the moment the recording opened: the caller's frames where they arrived (consecutive
 * frames back to back while they keep within a frame of their arrival), the agent's where the
 * playout says they start playing, cut where playback stopped (barge-in: only what was heard);
 * gaps are silence. Audio before the current time is final: every `flushMs` it is interleaved into
 * one buffer, appended to the file, and the header's sizes patched, so a process killed mid-call
 * leaves a file playable up to the last flush. A failing disk ends the recording (logged), never
 * the call.
 */
export class RecordingWriter {
  private readonly channels: number;
  private readonly caller: Int16Array = new Int16Array(windowSamples);
  private readonly agent: Int16Array;
  private readonly callerResampler: Resampler | null;
  private readonly agentResampler: Resampler | null;
  private readonly startMs: number;
  /** Absolute sample indexes: written to disk before `committed`; each channel's audio ends at its `…End`. */
  private committed = 0;
  private callerEnd = 0;
  /** The caller's current run of back-to-back frames starts at `runStart`; the audio before it ends at `runFloor`. */
  private runStart = 0;
  private runFloor = 0;
  private agentEnd = 0;
  /** The agent's audio the client held when it paused its player, played again on resume. */
  private held: Int16Array | null = null;
  private file: Promise<FileHandle | null>;
  private io: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private failed = false;
  private dropWarned = false;
  private closed: Promise<number> | null = null;

  constructor(private readonly o: RecordingWriterOptions) {
    this.channels = o.callerOnly ? 1 : 2;
    this.agent = new Int16Array(o.callerOnly ? 0 : windowSamples);
    this.callerResampler = o.callerRate === recordingRate ? null : new Resampler(o.callerRate, recordingRate);
    this.agentResampler =
      o.callerOnly || o.agentRate === recordingRate ? null : new Resampler(o.agentRate, recordingRate);
    this.startMs = o.now();
    this.file = this.create();
    this.timer = setInterval(() => this.commit(this.nowIndex()), o.flushMs ?? 1_000);
    this.timer.unref();
  }

  /**
   * A caller frame that arrived now. Frames follow each other back to back while they keep within
   * a frame of their arrival; one arriving later than that starts a new run where it arrived
   * (silence before it). A frame arriving earlier than the run puts it (a late first frame and the
   * burst behind it) moves the run's unwritten audio back into the silence before it: the run is
   * anchored by its most punctual frame, so every frame sits within a frame of its arrival.
   */
  callerFrame(frame: AudioFrame): void {
    if (this.closed !== null || this.failed) return;
    const samples = this.callerResampler?.push(frame.samples) ?? frame.samples;
    const arrival = this.nowIndex();
    if (arrival > this.callerEnd + samples.length) {
      this.runFloor = this.callerEnd;
      this.runStart = Math.max(arrival, this.committed);
      this.callerEnd = this.runStart;
    }
    const early = this.callerEnd - arrival;
    const room = this.runStart - Math.max(this.runFloor, this.committed);
    if (early > 0 && room > 0) this.moveRunBack(Math.min(early, room));
    this.callerEnd = this.place(this.caller, samples, Math.max(this.callerEnd, this.committed));
  }

  /** Moves the caller's current run `by` samples earlier (into the silence before it, not yet written). */
  private moveRunBack(by: number): void {
    for (let p = this.runStart; p < this.callerEnd; p++) {
      this.caller[(p - by) % windowSamples] = this.caller[p % windowSamples]!;
      this.caller[p % windowSamples] = 0;
    }
    this.runStart -= by;
    this.callerEnd -= by;
  }

  /** What the playout tells: where the agent's frames play, and where playback stops. */
  readonly agentTap: PlayoutTap = {
    frame: (samples, delayMs) => {
      if (this.closed !== null || this.failed || this.o.callerOnly) return;
      const out = this.agentResampler?.push(samples) ?? samples;
      const due = this.nowIndex() + Math.round((delayMs * recordingRate) / 1000);
      // A frame queued behind audio still playing follows it back to back (the playout's clock and
      // this one round apart by a millisecond or two, more on a stalled event loop); the playout
      // plays one frame after another, so a frame never overwrites one placed before it. After a
      // gap it plays when it is due.
      const follows = due < this.agentEnd || (delayMs > 0 && due - this.agentEnd <= contiguousSamples);
      const at = follows ? this.agentEnd : due;
      this.agentEnd = this.place(this.agent, out, Math.max(at, this.committed));
    },
    cut: () => {
      this.held = null;
      this.truncateAgent();
    },
    pause: () => {
      this.held = this.truncateAgent();
    },
    resume: () => {
      const held = this.held;
      this.held = null;
      if (held !== null && this.closed === null)
        this.agentEnd = this.place(this.agent, held, Math.max(this.nowIndex(), this.committed));
    },
  };

  /** Writes what was recorded up to now and closes the file; resolves with the file's data bytes. */
  close(): Promise<number> {
    this.closed ??= (async () => {
      clearInterval(this.timer);
      // the caller's last frames may sit a frame ahead of now; the agent's were cut at now
      this.commit(Math.max(this.nowIndex(), this.callerEnd));
      try {
        await this.io;
        const file = await this.file;
        if (file !== null) await file.close();
      } finally {
        await this.o.onClosed?.();
      }
      return this.committed * this.channels * 2;
    })();
    return this.closed;
  }

  private nowIndex(): number {
    return Math.max(0, Math.floor(((this.o.now() - this.startMs) * recordingRate) / 1000));
  }

  /** Drops the agent's audio scheduled from now on (never heard) and returns a copy of it. */
  private truncateAgent(): Int16Array | null {
    const from = Math.max(this.nowIndex(), this.committed);
    if (this.agentEnd <= from) return null;
    const tail = new Int16Array(this.agentEnd - from);
    for (let i = 0; i < tail.length; i++) {
      const at = (from + i) % windowSamples;
      tail[i] = this.agent[at]!;
      this.agent[at] = 0;
    }
    this.agentEnd = from;
    return tail;
  }

  /** Copies `samples` into the channel's window at absolute index `at`; returns where they end. */
  private place(channel: Int16Array, samples: Int16Array, at: number): number {
    const room = this.committed + windowSamples - at;
    let count = samples.length;
    if (count > room) {
      count = Math.max(0, room);
      if (!this.dropWarned) {
        this.dropWarned = true;
        this.o.logger.warn({ path: this.o.path }, 'recording: audio far ahead of real time is left out');
      }
    }
    const start = at % windowSamples;
    const first = Math.min(count, windowSamples - start);
    channel.set(samples.subarray(0, first), start);
    if (count > first) channel.set(samples.subarray(first, count), 0);
    return at + count;
  }

  /** Interleaves the window up to `upTo` (final audio) into one buffer and queues its write. */
  private commit(upTo: number): void {
    const end = Math.min(upTo, this.committed + windowSamples);
    if (end <= this.committed || this.failed) return;
    const frames = end - this.committed;
    // PCM16LE: the platforms Node runs on here are little-endian, so the samples are copied as they are
    const pcm = new Int16Array(frames * this.channels);
    for (let i = 0, p = this.committed % windowSamples, o = 0; i < frames; i++, p = (p + 1) % windowSamples) {
      pcm[o++] = this.caller[p]!;
      this.caller[p] = 0;
      if (this.channels === 2) {
        pcm[o++] = this.agent[p]!;
        this.agent[p] = 0;
      }
    }
    const out = Buffer.from(pcm.buffer, 0, pcm.byteLength);
    const offset = wavHeaderBytes + this.committed * this.channels * 2;
    this.committed = end;
    const dataBytes = end * this.channels * 2;
    this.io = this.io.then(async () => {
      const file = await this.file;
      if (file === null || this.failed) return;
      try {
        await file.write(out, 0, out.length, offset);
        // the whole header in one write: a kill never leaves its two sizes disagreeing
        await file.write(wavHeader(this.channels, recordingRate, dataBytes), 0, wavHeaderBytes, 0);
      } catch (err) {
        this.fail(err);
      }
    });
  }

  private async create(): Promise<FileHandle | null> {
    try {
      await mkdir(dirname(this.o.path), { recursive: true, mode: 0o700 });
      const file = await open(this.o.path, 'w', 0o600);
      await file.write(wavHeader(this.channels, recordingRate, 0), 0, wavHeaderBytes, 0);
      return file;
    } catch (err) {
      this.fail(err);
      return null;
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.o.logger.error({ err, path: this.o.path }, 'recording failed: the rest of this call is not recorded');
  }
}
