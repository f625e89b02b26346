import { describe, expect, it } from 'vitest';
import { humanSpeech } from '../support/human-speech.js';
import { clip, espeakTts, realSpeechBed, report } from '../support/real-speech.js';
import type { VoiceClient } from '../support/voice-client.js';
import { wordErrorRate } from '../support/wer.js';

/**
 * Barge-in decided while the caller is still talking, on a person's recorded voice (an Asterisk
 * prompt, 8 kHz) over a phone-rate WebSocket session, and acknowledgements (flite, 16 kHz) that
 * must still resume: the real Silero VAD and pocketsphinx decide, the webhook is a real HTTP
 * server. The agent's turn-taking settings are the defaults. Times are stream times: how much of
 * the caller's speech had been sent.
 */

const bed = realSpeechBed();
const phone = 8_000;
const wide = 16_000;
const answer =
  'We serve breakfast, lunch and dinner every day of the week, with seasonal dishes, fresh bread from our own oven, and a long list of wines from many regions of the country.';

/** Silence in 100 ms pieces (a live line) until `done`, at most `maxMs`. */
async function listenUntil(client: VoiceClient, done: () => boolean, maxMs = 30_000, rate = phone): Promise<void> {
  const quiet = { samples: new Int16Array(rate / 10), sampleRate: rate };
  for (let ms = 0; !done() && ms < maxMs; ms += 100) await client.stream(quiet);
}

/**
 * Streams all of `samples` at real time in 100 ms pieces; returns how many ms of them had been
 * sent when `seen` first held (null: not while they were sent).
 */
async function speak(client: VoiceClient, samples: Int16Array, seen: () => boolean, rate = phone) {
  const piece = rate / 10;
  let seenAt: number | null = null;
  for (let at = 0; at < samples.length; at += piece) {
    if (seenAt === null && seen()) seenAt = (at * 1000) / rate;
    await client.stream({ samples: samples.subarray(at, at + piece), sampleRate: rate });
  }
  return seenAt;
}

/** An agent answering at length over a session at `rate`: returns once 0.8 s of its answer has played. */
async function answering(then: string, rate = phone) {
  const agent = await bed.agent(espeakTts);
  const session = await bed.connect(agent, (_, n) => (n === 0 ? answer : then), rate);
  session.client.sendJson({ type: 'text', text: 'tell me about your menu' });
  await listenUntil(session.client, () => session.client.eventsOf('audio_start').length > 0, 30_000, rate);
  await listenUntil(session.client, () => session.client.audio.length >= 40, 30_000, rate);
  return session;
}

const flow = (client: VoiceClient) =>
  client.events.map((e) => e.type).filter((t) => t.startsWith('playback') || t === 'interrupted');

describe('barge-in on a person talking over the agent', () => {
  it('a sentence over the answer interrupts it before the caller stops talking; all of it is the next turn', async () => {
    const caller = humanSpeech('vm-rec-busy'); // "After the tone say your busy message and then press the pound key."
    expect(caller.sampleRate).toBe(phone);
    const speechMs = (caller.samples.length * 1000) / phone;
    const { client, sessionId } = await answering('I see.');

    const interruptedAtMs = await speak(client, caller.samples, () => client.eventsOf('interrupted').length > 0);
    await listenUntil(client, () => client.eventsOf('audio_end').length > 0);

    // decided while the caller was still talking: before the stream reached the end of the speech
    console.log(`interrupted ${interruptedAtMs} ms into ${Math.round(speechMs)} ms of speech`);
    expect(interruptedAtMs).not.toBeNull();
    expect(interruptedAtMs!).toBeLessThan(speechMs);
    // paused at the onset (a breath before it may pause and resume first), then interrupted once
    expect(flow(client).slice(-2)).toEqual(['playback_paused', 'interrupted']);
    expect(flow(client).filter((t) => t === 'interrupted')).toHaveLength(1);
    expect(client.eventsOf('interrupted')[0]!.turn).toBe(1);
    // the next turn is the whole sentence, from its first word
    const sent = bed.transcripts(sessionId);
    expect(sent).toHaveLength(2); // the typed question, then the caller's words
    const pairs = [{ said: caller.text, heard: sent[1]! }];
    const wer = wordErrorRate(pairs);
    report('barge-in mid-speech: a recorded voice over espeak-ng → pocketsphinx (phone)', wer, pairs);
    // The turn holds the whole sentence's audio, and its words come from the segments the VAD cut,
    // each decoded as it was spoken: on this 8 kHz prompt they read anywhere from "after the tone
    // say your busy message … pound key" to "at that and they … and key" from run to run (a
    // segment decoded alone, without the words around it). What is checked: words were heard, and
    // the last of them ("key") comes from the end of the sentence, long after the decision.
    expect(wer).toBeLessThan(1.2);
    expect(sent[1]).toMatch(/\bkey$/);
    expect(client.eventsOf('audio_end').map((e) => e.turn)).toEqual([2]);
  }, 90_000);

  it('"okay" and a slow "mm-hmm" over the answer still resume it: no interruption, no second turn', async () => {
    const { client, sessionId } = await answering('Good.', wide);
    for (const backchannel of ['Okay.', 'Mm-hmm.']) {
      // Each acknowledgement starts on a VAD window (512 samples from the session's first). How much
      // silence came before it depends on when events arrived, and a shifted window grid moves the
      // VAD's cut, which pocketsphinx can turn into another word: aligned, every run decodes the
      // same audio (here "okay" is heard as "again": one word, which resumes).
      await client.stream({ samples: new Int16Array((512 - (client.samplesSent % 512)) % 512), sampleRate: wide });
      await speak(client, clip('slt', backchannel).samples, () => false, wide);
      await listenUntil(client, () => flow(client).at(-1) !== 'playback_paused', 10_000, wide);
      await listenUntil(client, () => false, 1_000, wide);
    }
    await listenUntil(client, () => client.eventsOf('audio_end').length > 0, 30_000, wide);

    expect(flow(client)).toEqual(['playback_paused', 'playback_resumed', 'playback_paused', 'playback_resumed']);
    expect(client.eventsOf('audio_end').map((e) => e.turn)).toEqual([1]);
    expect(bed.transcripts(sessionId)).toEqual(['tell me about your menu']);
  }, 90_000);
});
