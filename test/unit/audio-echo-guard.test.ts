/**
 * Issue 22 item 5 on arrays: the echo guard (src/audio/echo-guard.ts) on a simulated phone line.
 * Real speech: flite says the agent's answer, which the phone plays (8 kHz μ-law, sent 120 ms ahead
 * as the playout does) and hears back delayed and attenuated over noise; a different voice saying
 * different words is the caller, mixed over that echo. The echo alone must never open the guard;
 * the caller must, and pass.
 */
import { describe, expect, it } from 'vitest';
import { EchoGuard } from '../../src/audio/echo-guard.js';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { PlayedLine } from '../../src/audio/played-line.js';
import { Resampler } from '../../src/audio/resampler.js';
import { fliteSay } from '../support/flite-speech.js';

const frame = 160; // 20 ms at 8 kHz
const leadFrames = 6; // the playout's 120 ms lead
const noiseDbfs = -55;
const voicedLevel = 500;

function to8k(samples16k: Int16Array): Int16Array {
  const resampler = new Resampler(16_000, 8_000);
  const head = resampler.push(samples16k);
  const tail = resampler.flush();
  const out = new Int16Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return mulawDecode(mulawEncode(out)); // as the phone plays it
}

const agent = to8k(
  fliteSay('We open at nine in the morning and close at ten in the evening, every day of the week.', 'slt'),
);
const agentAgain = to8k(fliteSay('The kitchen serves until half past nine, and the bar stays open later.', 'slt'));
const caller = to8k(fliteSay('Hold on, I need to ask about parking for my car.', 'rms'));

/** A burst of the agent's speech: the phone starts playing it at `atFrame` and hears it back `delayMs` later. */
interface Burst {
  samples: Int16Array;
  atFrame: number;
  delayMs: number;
}

interface LineRun {
  guard: EchoGuard;
  /** Frames of the caller's voice (over `voicedLevel`) and how many of them the guard handed on. */
  callerFrames: number;
  callerPassed: number;
  /** Frames from the caller's first voiced one to the guard opening (null: never opened). */
  releasedAfterFrames: number | null;
  /** The loudest frame handed on before the caller spoke (sum of squares). */
  loudestBeforeCaller: number;
}

/** One call on the line: the bursts played and echoed at `gainDb`, the caller from `callerAtFrame`. */
function runLine(bursts: Burst[], gainDb: number, callerAtFrame: number | null = null): LineRun {
  const guard = new EchoGuard();
  const gain = 10 ** (gainDb / 20);
  const noise = 32768 * 10 ** (noiseDbfs / 20) * Math.sqrt(3);
  let seed = 7;
  const end = Math.max(...bursts.map((b) => b.atFrame + Math.ceil(b.samples.length / frame) + b.delayMs / 20 + 20));
  const run: LineRun = { guard, callerFrames: 0, callerPassed: 0, releasedAfterFrames: null, loudestBeforeCaller: 0 };
  let callerFirstVoiced: number | null = null;
  for (let k = 0; k < end; k++) {
    // Parley sends each burst's frames 120 ms ahead of the phone playing them
    for (const b of bursts)
      for (let j = Math.max(0, k - b.atFrame); j <= k - b.atFrame + leadFrames; j++) {
        const sendAt = j === 0 ? b.atFrame : Math.max(b.atFrame, b.atFrame + j - leadFrames);
        if (sendAt === k && j * frame < b.samples.length) guard.played(b.samples.subarray(j * frame, (j + 1) * frame));
      }
    const heard = new Int16Array(frame);
    let callerVoiced = false;
    for (let i = 0; i < frame; i++) {
      const t = k * frame + i;
      let v = 0;
      for (const b of bursts) {
        const e = t - b.atFrame * frame - b.delayMs * 8;
        if (e >= 0 && e < b.samples.length) v += b.samples[e]! * gain;
      }
      if (callerAtFrame !== null) {
        const c = t - callerAtFrame * frame;
        if (c >= 0 && c < caller.length) {
          v += caller[c]!;
          if (Math.abs(caller[c]!) > voicedLevel) callerVoiced = true;
        }
      }
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      heard[i] = Math.max(-32768, Math.min(32767, Math.round(v + (seed / 0x7fffffff - 0.5) * 2 * noise)));
    }
    if (callerVoiced) callerFirstVoiced ??= k;
    const released = guard.counts.released;
    let passed = 0;
    guard.hear(mulawDecode(mulawEncode(heard)), (samples) => {
      for (const s of samples) passed += s * s;
    });
    if (guard.counts.released > released && callerFirstVoiced !== null)
      run.releasedAfterFrames ??= k - callerFirstVoiced;
    if (callerVoiced) {
      run.callerFrames++;
      if (passed > 0) run.callerPassed++;
    } else if (callerFirstVoiced === null) run.loudestBeforeCaller = Math.max(run.loudestBeforeCaller, passed);
  }
  return run;
}

const combos = [50, 150, 300].flatMap((delayMs) => [-6, -12, -20].map((gainDb) => ({ delayMs, gainDb })));

describe('the echo guard on a phone line', () => {
  it.each(combos)('mutes the agent echoed at $delayMs ms, $gainDb dB: never opened', ({ delayMs, gainDb }) => {
    const run = runLine([{ samples: agent, atFrame: 10, delayMs }], gainDb);
    expect(run.guard.counts.released).toBe(0);
    expect(run.guard.counts.muted).toBeGreaterThan(100);
    // the line's noise at most (-55 dBFS), never the echo (-20 dB under the agent's -15 dBFS at least)
    expect(run.loudestBeforeCaller).toBeLessThan(frame * 150 ** 2);
  });

  it.each(combos)('opens for a caller over the echo at $delayMs ms, $gainDb dB', ({ delayMs, gainDb }) => {
    const run = runLine([{ samples: agent, atFrame: 10, delayMs }], gainDb, 60);
    // opened within 300 ms of the caller's first voiced frame (simulated time, 20 ms a frame)
    expect(run.releasedAfterFrames).not.toBeNull();
    expect(run.releasedAfterFrames!).toBeLessThanOrEqual(15);
    expect(run.callerPassed / run.callerFrames).toBeGreaterThan(0.75);
  });

  it("holds when the echo's delay jumps between two bursts of the agent's speech", () => {
    for (const [first, second] of [
      [50, 300],
      [300, 50],
    ] as const) {
      const bursts = [
        { samples: agent, atFrame: 10, delayMs: first },
        { samples: agentAgain, atFrame: 10 + Math.ceil(agent.length / frame) + 15, delayMs: second },
      ];
      const { counts } = runLine(bursts, -6).guard;
      expect(counts.released).toBe(0);
      expect(counts.muted).toBeGreaterThan(200); // both bursts' echo
    }
  });

  it("finds an echo up to 1 s behind the playing clock (the line's delay, the network's, a busy event loop)", () => {
    for (const delayMs of [600, 900]) {
      const { counts } = runLine([{ samples: agent, atFrame: 10, delayMs }], -6).guard;
      expect(counts.released).toBe(0);
      expect(counts.muted).toBeGreaterThan(100);
    }
  });

  it('lets everything through untouched while nothing was played', () => {
    const guard = new EchoGuard();
    const out: number[] = [];
    for (let i = 0; i + frame <= caller.length; i += frame)
      guard.hear(caller.subarray(i, i + frame), (s) => out.push(...s));
    expect(out).toEqual([...caller.subarray(0, out.length)]);
    expect(out.length).toBe(caller.length - (caller.length % frame));
    expect(guard.counts.checked).toBe(0);
  });
});

describe('PlayedLine', () => {
  it('queues audio after what the phone holds, after a gap at once, and forgets a cleared queue', () => {
    const line = new PlayedLine(1000);
    line.play(new Int16Array(100).fill(1000), 0);
    line.play(new Int16Array(100).fill(2000), 50); // queued behind the first
    expect(line.head).toBe(200);
    line.play(new Int16Array(100).fill(3000), 400); // the phone ran dry: plays at once
    expect(line.head).toBe(500);
    const out = new Float32Array(600);
    line.read(0, out);
    expect([out[0], out[150], out[300], out[450], out[550]].map((v) => Math.round(v! * 32768))).toEqual([
      1000, 2000, 0, 3000, 0,
    ]);
    line.drop(420); // `clear`: what was queued past 420 never plays
    expect(line.head).toBe(420);
  });
});
