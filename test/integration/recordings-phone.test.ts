import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { Resampler } from '../../src/audio/resampler.js';
import { createAgent } from '../support/agents.js';
import { eventually } from '../support/eventually.js';
import { FakePhone, placeCall } from '../support/fake-carrier.js';
import { parleyForFile } from '../support/parley.js';
import { concatSamples, resample } from '../support/pcm.js';
import { firstSound, lastSound, readRecording, withoutZeros } from '../support/recording-file.js';

/**
 * A recorded phone call (Twilio Media Streams, 8 kHz μ-law both ways): both channels come out at
 * 16 kHz, each exactly what the phone sent or played, through the same resampler.
 */

const authToken = 'twilio-auth-token-for-tests';
const dir = mkdtempSync(join(tmpdir(), 'parley-recordings-phone-'));
const bed = parleyForFile({ TWILIO_AUTH_TOKEN: authToken, PARLEY_DATA_DIR: dir });
const number = '+15105550100';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `samples` at 8 kHz resampled to 16 kHz in one go (what the recorder's streaming resampler yields, less its tail). */
function to16k(samples: Int16Array): Int16Array {
  return new Resampler(8_000, 16_000).push(samples);
}

/** Where in `reference` (searched around `near`) `piece` lines up best. */
function bestLag(piece: Int16Array, reference: Int16Array, near: number): number {
  let best = near;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let lag = Math.max(0, near - 400); lag <= near + 400; lag++) {
    let score = 0;
    for (let i = 0; i < piece.length && lag + i < reference.length; i++) score += piece[i]! * reference[lag + i]!;
    if (score > bestScore) [best, bestScore] = [lag, score];
  }
  return best;
}

/** Signal-to-noise ratio of `actual` against `reference` over their common length, in dB. */
function snrDb(actual: Int16Array, reference: Int16Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < Math.min(actual.length, reference.length); i++) {
    signal += reference[i]! ** 2;
    noise += (actual[i]! - reference[i]!) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(1, noise));
}

describe('a recorded phone call', () => {
  it('holds the caller and the agent at 16 kHz, each as the phone sent and played it', async () => {
    const agent = await createAgent(bed.p, {
      phone_numbers: [number],
      greeting: 'Thank you for calling the recording line today',
      recording: 'on',
    });
    const phone = await FakePhone.connect(
      await placeCall({ parleyUrl: bed.p.url, authToken, from: '+14155550199', to: number }),
    );
    phone.start();
    // quiet caller audio (below the VAD's floor) while the greeting plays
    const quiet = new Int16Array(16_000).map((_, i) => (((i * 7919) % 61) + 9) * (i % 2 === 0 ? 1 : -1));
    await phone.speak(quiet);
    await eventually(
      () => phone.echoedMarks,
      (marks) => marks.includes('turn-0-end'),
      { timeoutMs: 20_000, what: 'the greeting played' },
    );
    phone.stop();
    await phone.closed();
    const sessionId = phone.parameters['session_id']!;
    const session = await eventually(
      async () =>
        (await bed.p.request('GET', `/admin/v1/sessions/${sessionId}`)).body as {
          status: string;
          conversation_id: string;
        },
      (read) => read.status === 'ended',
      { what: 'the session ended' },
    );

    const file = await readRecording(join(dir, 'recordings', agent.id, `${session.conversation_id}.wav`));
    expect(file).toMatchObject({ channels: 2, sampleRate: 16_000 });
    const [caller, agentSide] = file.channel as [Int16Array, Int16Array];
    // the agent: what the phone played (its μ-law frames, decoded, resampled): the recording
    // holds the same speech before μ-law (the playout's PCM), so it matches to μ-law's precision
    const played = to16k(concatSamples(phone.heard));
    const start = firstSound(agentSide);
    const lag = bestLag(agentSide.subarray(start, start + 8_000), played, firstSound(played));
    expect(snrDb(agentSide.subarray(start), played.subarray(lag))).toBeGreaterThan(25);
    expect(lastSound(agentSide) - start).toBeGreaterThan((played.length - lag) * 0.98);
    // the caller: what the phone sent (16 kHz → 8 kHz μ-law, as FakePhone.speak sends it), back at 16 kHz
    const eight = resample(quiet, 16_000, 8_000);
    const frames: Int16Array[] = [];
    for (let i = 0; i < eight.length; i += 160) {
      const frame = new Int16Array(160);
      frame.set(eight.subarray(i, i + 160));
      frames.push(mulawDecode(mulawEncode(frame)));
    }
    const sent = withoutZeros(to16k(concatSamples(frames)));
    const recordedCaller = withoutZeros(caller);
    expect(recordedCaller.length).toBeGreaterThan(sent.length * 0.99);
    // (compared as booleans: a failing toEqual of 30 000 samples takes vitest a minute to print)
    expect(recordedCaller.every((v, i) => v === sent[i])).toBe(true);
  }, 60_000);
});
