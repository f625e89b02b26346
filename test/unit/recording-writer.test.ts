import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingWriter } from '../../src/call-recordings/recording-writer.js';
import { repairWavSizes, wavHeader } from '../../src/call-recordings/wav-file.js';
import { readRecording } from '../support/recording-file.js';

const logger = pino({ level: 'silent' });
let dir: string;
let t: number;
const now = () => t;

/** `n` samples of value `v` (distinct values tell frames apart in the file). */
const fill = (n: number, v: number) => new Int16Array(n).fill(v);
const frame = (n: number, v: number) => ({ samples: fill(n, v), sampleRate: 16_000 });
const range = (a: Int16Array, from: number, to: number) => Array.from(a.subarray(from, to));

function writer(options: Partial<ConstructorParameters<typeof RecordingWriter>[0]> = {}) {
  return new RecordingWriter({
    path: join(dir, 'agt', 'cnv.wav'),
    callerOnly: false,
    callerRate: 16_000,
    agentRate: 16_000,
    now,
    logger,
    flushMs: 60_000,
    ...options,
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-rec-'));
  t = 1_000;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('RecordingWriter', () => {
  it('puts caller frames where they arrived and agent frames where they play; the cut drops what was not heard', async () => {
    const w = writer();
    w.callerFrame(frame(320, 1)); // 0 ms
    t += 20;
    w.callerFrame(frame(320, 2)); // 20 ms: back to back
    t += 180;
    w.callerFrame(frame(320, 3)); // 200 ms, after a gap of silence
    w.agentTap.frame(fill(320, 7), 0); // plays now (200 ms)
    w.agentTap.frame(fill(320, 8), 20); // 220 ms
    w.agentTap.frame(fill(320, 9), 40); // 240 ms: never heard
    t += 30;
    w.agentTap.cut(); // barge-in at 230 ms
    t += 70;
    expect(await w.close()).toBe(4_800 * 4);

    const file = await readRecording(join(dir, 'agt', 'cnv.wav'));
    expect(file).toMatchObject({ channels: 2, sampleRate: 16_000, declaredBytes: 4_800 * 4, fileDataBytes: 4_800 * 4 });
    const [caller, agent] = file.channel as [Int16Array, Int16Array];
    expect(range(caller, 0, 320)).toEqual(Array(320).fill(1));
    expect(range(caller, 320, 640)).toEqual(Array(320).fill(2));
    expect(range(caller, 640, 3_200)).toEqual(Array(2_560).fill(0));
    expect(range(caller, 3_200, 3_520)).toEqual(Array(320).fill(3));
    expect(range(agent, 0, 3_200)).toEqual(Array(3_200).fill(0));
    expect(range(agent, 3_200, 3_520)).toEqual(Array(320).fill(7));
    // cut at 230 ms = sample 3 680: the second frame's first half was heard, the third not at all
    expect(range(agent, 3_520, 3_680)).toEqual(Array(160).fill(8));
    expect(range(agent, 3_680, 4_800)).toEqual(Array(1_120).fill(0));
  });

  it("a paused player's audio plays on resume; a burst of late frames lies back to back before its arrival", async () => {
    const w = writer();
    w.agentTap.frame(fill(320, 5), 0);
    w.agentTap.frame(fill(320, 6), 20);
    t += 10;
    w.agentTap.pause(); // at 160: the client holds 160 of 5 and all of 6
    t += 490;
    w.agentTap.resume(); // at 500 ms = 8 000
    for (let i = 0; i < 3; i++) w.callerFrame(frame(320, 10 + i)); // a burst at one instant
    t += 100;
    await w.close();
    const [caller, agent] = (await readRecording(join(dir, 'agt', 'cnv.wav'))).channel as [Int16Array, Int16Array];
    expect(range(agent, 0, 160)).toEqual(Array(160).fill(5));
    expect(range(agent, 160, 8_000)).toEqual(Array(7_840).fill(0));
    expect(range(agent, 8_000, 8_160)).toEqual(Array(160).fill(5));
    expect(range(agent, 8_160, 8_480)).toEqual(Array(320).fill(6));
    // the burst was sent before it arrived: back to back, the last frame ending a frame past its arrival
    expect(range(caller, 7_360, 8_320)).toEqual([
      ...Array(320).fill(10),
      ...Array(320).fill(11),
      ...Array(320).fill(12),
    ]);
    expect(range(caller, 0, 7_360)).toEqual(Array(7_360).fill(0));
  });

  it('a frame the playout says plays earlier than the audio before it ends follows it, never over it', async () => {
    const w = writer();
    w.agentTap.frame(fill(320, 1), 0); // 0 ms
    w.agentTap.frame(fill(320, 2), 20); // 20 ms
    // the event loop stalled: the playout's clock runs 30 ms behind this one's
    w.agentTap.frame(fill(320, 3), 10);
    w.agentTap.frame(fill(320, 4), 0);
    t += 200;
    await w.close();
    const [, agent] = (await readRecording(join(dir, 'agt', 'cnv.wav'))).channel as [Int16Array, Int16Array];
    expect(range(agent, 0, 1_280)).toEqual([1, 2, 3, 4].flatMap((v) => Array(320).fill(v)));
  });

  it('a late first frame and the burst behind it move back when a punctual frame shows the real timing', async () => {
    const w = writer();
    t += 100; // the frame sent at 60 ms arrives 40 ms late, the one sent at 80 ms with it
    w.callerFrame(frame(320, 1));
    w.callerFrame(frame(320, 2));
    // the frame sent at 100 ms arrives on time
    w.callerFrame(frame(320, 3));
    for (let i = 4; i < 8; i++) {
      t += 20;
      w.callerFrame(frame(320, i));
    }
    await w.close();
    const [caller] = (await readRecording(join(dir, 'agt', 'cnv.wav'))).channel as [Int16Array];
    // frame 3 starts at its arrival (1 600), 1 and 2 back to back before it, each later frame at its arrival
    expect(range(caller, 0, 960)).toEqual(Array(960).fill(0));
    expect(range(caller, 960, 1_600)).toEqual([...Array(320).fill(1), ...Array(320).fill(2)]);
    for (let i = 3; i < 8; i++) expect(caller[1_600 + (i - 3) * 320]).toBe(i);
  });

  it('caller_only writes one channel; other rates are resampled to 16 kHz', async () => {
    const w = writer({ callerOnly: true, callerRate: 8_000 });
    for (let i = 0; i < 50; i++) {
      w.callerFrame({ samples: fill(160, 1000), sampleRate: 8_000 });
      w.agentTap.frame(fill(160, 2000), 0);
      t += 20;
    }
    await w.close();
    const file = await readRecording(join(dir, 'agt', 'cnv.wav'));
    expect(file.channels).toBe(1);
    expect(file.channel[0]!.length).toBe(16_000);
    // a steady level comes through the resampler (past its first few samples)
    expect(Math.abs(file.channel[0]![8_000]! - 1000)).toBeLessThan(20);
  });

  it('patches the header after every flush, so the file on disk is playable up to the last one', async () => {
    const path = join(dir, 'agt', 'cnv.wav');
    const w = writer({ flushMs: 10 });
    t += 1_000;
    w.callerFrame(frame(320, 4));
    await expect.poll(async () => (await stat(path)).size, { timeout: 5_000 }).toBeGreaterThanOrEqual(44 + 16_000 * 4);
    // what a kill -9 now would leave: the header agrees with the data written
    await expect
      .poll(async () => {
        const file = await readRecording(path);
        return file.declaredBytes === file.fileDataBytes;
      })
      .toBe(true);
    await w.close();
  });
});

describe('repairWavSizes', () => {
  it("sets a killed recording's sizes from its length; leaves a right one alone", async () => {
    const path = join(dir, 'cut.wav');
    // the header of a flush 1 s before the kill, with 1.5 s of data (and half a sample frame) behind it
    await writeFile(path, Buffer.concat([wavHeader(2, 16_000, 64_000), Buffer.alloc(96_000 + 2)]));
    expect(await repairWavSizes(path)).toBe(true);
    const bytes = await readFile(path);
    expect(bytes.readUInt32LE(40)).toBe(96_000);
    expect(bytes.readUInt32LE(4)).toBe(36 + 96_000);
    expect(await repairWavSizes(path)).toBe(false);
  });
});
