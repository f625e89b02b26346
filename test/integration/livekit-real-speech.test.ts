import { AudioFrame } from '@livekit/rtc-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resampler } from '../../src/audio/resampler.js';
import { eventually } from '../support/eventually.js';
import type { FrameQueue } from '../support/fake-livekit/fake-room.js';
import { startLivekitBed, type LivekitBed } from '../support/fake-livekit/livekit-bed.js';
import { fliteScript } from '../support/flite-speech.js';
import { pocketsphinxStt, report } from '../support/real-speech.js';
import { wordErrorRate } from '../support/wer.js';

/**
 * The LiveKit bridge on real speech: the participant's microphone track carries flite speech as
 * 48 kHz rtc-node AudioFrames at real time, the session's preset recognises with pocketsphinx
 * (the bed's scripted transcription server is never called), the webhook gets the words.
 */

const said = 'can i book a table for four people on friday evening';
const answer = 'Yes, a table for four on Friday evening.';
let bed: LivekitBed;

beforeAll(async () => {
  bed = await startLivekitBed({
    transcribe: () => 'scripted: not expected',
    reply: () => ({ body: { response: answer } }),
  });
});
afterAll(async () => {
  await bed?.close();
});

/** `audio` (16 kHz) as 10 ms 48 kHz rtc-node AudioFrames, what AudioStream yields, at real time. */
async function speak(mic: FrameQueue, audio: Int16Array): Promise<void> {
  const resampler = new Resampler(16_000, 48_000);
  const pcm = resampler.push(audio);
  const n = 480;
  const start = performance.now();
  for (let i = 0, k = 0; i + n <= pcm.length; i += n, k++) {
    mic.push(new AudioFrame(pcm.slice(i, i + n), 48_000, 1, n));
    const wait = start + (k + 1) * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

describe('LiveKit bridge on real speech', () => {
  it('flite on the participant track reaches the webhook through pocketsphinx; the caption and answer follow', async () => {
    const { room, joined: mic } = await bed.dispatch(
      'real-speech',
      { greeting: null },
      (r) => r.userJoins('caller'),
      pocketsphinxStt,
    );
    await speak(mic, fliteScript('slt', 500, said, 2_000));
    await bed.webhook.waitFor(1, 30_000);
    const heard = (bed.webhook.requests[0]!.json as { data: { transcript: string } }).data.transcript;
    const wer = wordErrorRate([{ said, heard }]);
    report('LiveKit track (flite) → pocketsphinx', wer, [{ said, heard }]);
    expect(wer).toBeLessThanOrEqual(0.4);

    const captions = await eventually(
      () => room.captions().filter((c) => c.attributes['lk.transcription_final'] === 'true'),
      (c) => c.length === 2,
      { what: 'the user caption and the whole answer', timeoutMs: 30_000 },
    );
    expect(captions.map((c) => c.text)).toEqual([heard, answer]);
    expect(captions[0]!.senderIdentity).toBe('caller');
    await eventually(
      () => room.states,
      (s) => s.at(-1) === 'listening' && s.includes('speaking'),
      { what: 'the answer played out', timeoutMs: 30_000 },
    );
    expect(bed.webhook.requests).toHaveLength(1);
    expect(bed.audioApi.transcriptions).toEqual([]);
  }, 90_000);
});
