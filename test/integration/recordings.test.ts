import { describe, expect, it } from 'vitest';
import { fliteScript } from '../support/flite-speech.js';
import { hangUp, noise, recordingBed, stream } from '../support/recording-bed.js';
import { firstSound, lastSound, readRecording, withoutZeros } from '../support/recording-file.js';

/**
 * Call recordings through the real voice path: a WebSocket client streams audio at real time,
 * the agent speaks its greeting with espeak-ng, the real Silero VAD hears a barge-in. The file is
 * checked byte for byte against what the client sent and received.
 */

const rate = 16_000;
/**
 * Positions are checked to a frame with a fake clock (test/unit/recording-writer.test.ts); here
 * the client shares the server's event loop on a busy box, so its own clock reads each event late
 * by up to a few tens of ms: two 20 ms frames of slack.
 */
const timingSlack = 2 * 320;
const bed = recordingBed();

describe('a recorded voice session', () => {
  it("holds the caller's audio and the agent's as played, each in time, byte for byte", async () => {
    // one piece of speech (no clause to cut at): the client's bytes play back to back
    const a = await bed.agent({ recording: 'on', greeting: 'Thank you for calling the recording test line today' });
    const { client, speech, firstAudioAt, conversationId } = await bed.connect(a);
    const sent = noise(5_000);
    const sentAt = await stream(client, sent);
    await client.untilEvent('audio_end');
    await hangUp(client);

    const file = await readRecording(bed.path(a.id, conversationId));
    expect(file).toMatchObject({ channels: 2, sampleRate: rate });
    expect(file.declaredBytes).toBe(file.fileDataBytes);
    const [caller, agentSide] = file.channel as [Int16Array, Int16Array];
    // every caller sample, in order, with only silence between frames
    expect(withoutZeros(caller)).toEqual(sent);
    // every sample of the greeting the client received, in order (silence only where playback ran
    // dry: the client had nothing to play then either), and nothing after it
    const heard = speech.of(0);
    expect(withoutZeros(agentSide)).toEqual(withoutZeros(heard));
    // both on one clock: the greeting starts where it started for the client
    const agentStart = firstSound(agentSide) - firstSound(heard);
    const callerStart = firstSound(caller);
    const expected = ((firstAudioAt() - sentAt) * rate) / 1000;
    expect(Math.abs(agentStart - callerStart - expected)).toBeLessThanOrEqual(timingSlack);
  }, 60_000);

  it('keeps only what the caller heard of an answer cut by barge-in', async () => {
    const a = await bed.agent({
      recording: 'on',
      greeting:
        'We serve breakfast and lunch and dinner every day of the week with seasonal dishes and fresh bread and a long list of wines from many regions',
    });
    const { client, speech, firstAudioAt, conversationId } = await bed.connect(a);
    const quiet = new Int16Array(3_200);
    while (client.audio.length < 40) await stream(client, quiet); // 0.8 s of the greeting
    const words = fliteScript('slt', 'stop, wait a moment i have a question', 300);
    await stream(client, words);
    await client.untilEvent('playback_paused');
    const pausedAt = client.eventsOf('playback_paused')[0]!.at;
    await client.untilEvent('interrupted');
    await hangUp(client);

    const [, agentSide] = (await readRecording(bed.path(a.id, conversationId))).channel as [Int16Array, Int16Array];
    const heard = speech.of(0);
    const kept = withoutZeros(agentSide);
    // what the client played before it paused, and nothing of the rest of the greeting it had been sent
    expect(kept.length).toBeLessThan(withoutZeros(heard).length);
    expect(kept).toEqual(withoutZeros(heard).subarray(0, kept.length));
    // cut where the client paused its player. Silence is zeros in the file, heard or not, so a cut
    // in a pause of the speech is somewhere in that pause: after the last sound kept, before the
    // next sound of the greeting (espeak leaves 109 ms of zeros around where this cut falls)
    const agentStart = firstSound(agentSide) - firstSound(heard);
    const afterKept = lastSound(agentSide) + 1 - agentStart;
    const nextSound = firstSound(heard, afterKept);
    const expected = ((pausedAt - firstAudioAt()) * rate) / 1000;
    expect(Math.max(afterKept - expected, expected - nextSound, 0)).toBeLessThanOrEqual(timingSlack);
  }, 60_000);
});
