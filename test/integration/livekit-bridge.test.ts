import { JobStatus } from '@livekit/protocol';
import { AudioFrame } from '@livekit/rtc-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame as PcmFrame } from '../../src/audio/audio-frame.js';
import { readWav } from '../../src/audio/wav.js';
import { eventually } from '../support/eventually.js';
import { type FakeRoom, type FrameQueue } from '../support/fake-livekit/fake-room.js';
import { startLivekitBed, type LivekitBed } from '../support/fake-livekit/livekit-bed.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import { HttpReceiver, type Reply } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import type { TestParley } from '../support/parley.js';

/**
 * The LiveKit audio bridge end to end, with the room stood in for at its interface: real rtc-node
 * `AudioFrame`s of espeak-ng speech in, the real Silero VAD, STT through a local OpenAI-compatible
 * server, the webhook, espeak-ng speech out through a real `AudioSource`; captions on
 * `lk.transcription`, state in `lk.agent.state`, typed `lk.chat` turns, barge-in clearing the queue.
 */

const fixtures = new URL('../fixtures/audio/', import.meta.url);
let hello: PcmFrame;
let interrupt: PcmFrame;
let bed: LivekitBed;
let fake: FakeLivekit;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let p: TestParley;
let transcripts: string[];
let reply: (transcript: string) => Reply;

beforeAll(async () => {
  hello = await readWav(new URL('hello.wav', fixtures).pathname);
  interrupt = await readWav(new URL('interrupt.wav', fixtures).pathname);
  bed = await startLivekitBed({
    transcribe: (call) => transcripts[call.index] ?? `utterance ${call.index}`,
    reply: (t) => reply(t),
  });
  ({ fake, audioApi, webhook, p } = bed);
});
afterAll(async () => {
  await bed?.close();
});

/** An agent dispatched to room `name`, and a user with a microphone (returned) who joins it, once the job runs. */
async function roomWithAgent(name: string, settings: Record<string, unknown> = {}) {
  return roomJoinedBy(name, settings, (room) => room.userJoins('caller'));
}

/** The same, the user joining as `join` says (e.g. without a microphone). */
async function roomJoinedBy<T>(name: string, settings: Record<string, unknown>, join: (room: FakeRoom) => T) {
  const {
    room,
    joined: mic,
    job,
  } = await bed.dispatch(
    name,
    {
      greeting: null,
      // the fake STT answers by call number: one call per utterance (no transcription at the short
      // pauses inside the fixtures' sentences; test/e2e/voice-turn-taking covers that)
      transcription_silence_ms: 200,
      ...settings,
    },
    join,
  );
  return { room, mic, job };
}

/** Pushes `audio` as 10 ms rtc-node AudioFrames (what AudioStream yields), paced at `speed`× real time. */
async function speak(mic: FrameQueue, audio: PcmFrame, speed: number): Promise<void> {
  const n = audio.sampleRate / 100;
  const start = performance.now();
  for (let i = 0, k = 0; i + n <= audio.samples.length; i += n, k++) {
    mic.push(new AudioFrame(audio.samples.slice(i, i + n), audio.sampleRate, 1, n));
    const wait = start + ((k + 1) * 10) / speed - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

/** Captions marked final: the user's transcripts and each whole answer. */
const finals = (room: FakeRoom) => room.captions().filter((c) => c.attributes['lk.transcription_final'] === 'true');

const seconds = (room: FakeRoom, from = 0) =>
  room.out.frames.slice(from).reduce((n, f) => n + f.samplesPerChannel, 0) / 24_000;

describe('LiveKit audio bridge', () => {
  it('speech in → VAD → a turn → speech out as AudioFrames, with captions and agent state', async () => {
    transcripts = ['I would like to book a table for two tonight.'];
    audioApi.transcriptions.length = 0;
    reply = (t) => ({ body: { response: `Sure. You said: ${t}` } });
    const { room } = await roomWithAgent('bridge-1').then(async (r) => {
      await speak(r.mic, hello, 4);
      return r;
    });
    await eventually(
      () => room.states,
      (s) => s.length === 4,
      { what: 'the turn played out', timeoutMs: 20_000 },
    );
    const [user, ...answer] = room.captions();
    expect(user).toMatchObject({
      text: 'I would like to book a table for two tonight.',
      senderIdentity: 'caller',
      attributes: { 'lk.transcription_final': 'true', 'lk.transcribed_track_id': 'TR_caller' },
    });
    // The answer is captioned as it is produced, sentence by sentence, in one segment that the
    // client replaces: partial captions, then the whole answer marked final.
    expect(answer.map((c) => [c.text, c.attributes['lk.transcription_final']])).toEqual([
      ['Sure.', 'false'],
      ['Sure. You said: I would like to book a table for two tonight.', 'false'],
      ['Sure. You said: I would like to book a table for two tonight.', 'true'],
    ]);
    for (const c of answer) {
      expect(c).toMatchObject({ senderIdentity: undefined, attributes: { 'lk.transcribed_track_id': 'TR_agent' } });
      expect(c.attributes['lk.segment_id']).toBe(answer[0]!.attributes['lk.segment_id']);
    }
    expect(user!.attributes['lk.segment_id']).toMatch(/^SG_/);
    expect(user!.attributes['lk.segment_id']).not.toBe(answer[0]!.attributes['lk.segment_id']);
    // Captions go out while the agent speaks: the first before its audio, the whole answer before the audio ends.
    expect(answer[0]!.at).toBeLessThan(room.out.frameTimes[0]!);
    expect(answer.at(-1)!.at).toBeLessThan(room.out.frameTimes.at(-1)!);
    // The utterance reached STT at 16 kHz; speech went out as 24 kHz mono rtc-node frames.
    expect(audioApi.transcriptions.at(-1)!.audio.sampleRate).toBe(16_000);
    expect(room.out.frames.every((f) => f.sampleRate === 24_000 && f.channels === 1)).toBe(true);
    expect(seconds(room)).toBeGreaterThan(1);
    expect(room.out.frames.some((f) => f.data.some((v) => v !== 0))).toBe(true);
    expect(room.states).toEqual(['listening', 'thinking', 'speaking', 'listening']);
  });

  it('typed input on lk.chat is a text turn', async () => {
    transcripts = [];
    reply = (t) => ({ body: { response: `Typed: ${t}` } });
    const { room } = await roomWithAgent('bridge-chat');
    room.chat('What are your opening hours?');
    room.chat('not me', 'someone-else');
    const captions = await eventually(
      () => finals(room),
      (c) => c.length === 2,
      { what: 'captions', timeoutMs: 20_000 },
    );
    expect(captions.map((c) => c.text)).toEqual([
      'What are your opening hours?',
      'Typed: What are your opening hours?',
    ]);
    expect(
      webhook.requests.some((r) => (r.json as { data: { transcript: string } }).data.transcript === 'not me'),
    ).toBe(false);
  });

  it('a user who joins without a microphone gets a session at once (typed turns), and is heard once they publish one', async () => {
    transcripts = ['Now I am speaking.'];
    audioApi.transcriptions.length = 0;
    reply = (t) => ({ body: { response: `Heard: ${t}` } });
    const { room, job } = await roomJoinedBy('bridge-no-mic', {}, (r) => r.userJoinsWithoutMicrophone('caller'));
    const [session] = (await p.request('GET', `/admin/v1/sessions?status=active`)).body.data.filter(
      (x: { room: string }) => x.room === 'bridge-no-mic',
    );
    expect(session).toMatchObject({ transport: 'livekit', user_id: 'caller' });
    room.chat('Just typing here.');
    const typed = await eventually(
      () => finals(room),
      (c) => c.length === 2,
      { what: 'typed turn', timeoutMs: 20_000 },
    );
    expect(typed.map((c) => c.text)).toEqual(['Just typing here.', 'Heard: Just typing here.']);
    // No microphone yet: the user's caption names no track.
    expect(typed[0]!.attributes['lk.transcribed_track_id']).toBeUndefined();

    const mic = room.publishMicrophone();
    await speak(mic, hello, 4);
    const spoken = await eventually(
      () => finals(room),
      (c) => c.length === 4,
      { what: 'spoken turn', timeoutMs: 20_000 },
    );
    expect(spoken.slice(2).map((c) => c.text)).toEqual(['Now I am speaking.', 'Heard: Now I am speaking.']);
    expect(spoken[2]!.attributes['lk.transcribed_track_id']).toBe('TR_caller');
    expect(fake.jobs.get(job.id)!.statuses).toContain(JobStatus.JS_RUNNING);
  });

  it('barge-in: playback pauses at the onset, then the AudioSource queue is cleared and no more frames follow', async () => {
    // What STT hears: the answer's question; then the overlap (the VAD ends the segment at the
    // pause after "stop,"), which interrupts; then the whole utterance, the user having gone on.
    transcripts = ['Tell me everything about your menu.', 'Wait, stop,', 'Wait, stop, one more question.'];
    audioApi.transcriptions.length = 0;
    const long =
      'We serve breakfast, lunch and dinner every day of the week, with seasonal dishes, fresh bread, and a long list of wines from many regions.';
    reply = (t) => ({ body: { response: t.startsWith('Wait') ? 'Of course.' : long } });
    const { room, mic } = await roomWithAgent('bridge-barge', { interruption_min_speech_ms: 200 });
    await speak(mic, hello, 4);
    await eventually(() => room.states.includes('speaking'), Boolean, { what: 'speaking', timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 600));
    await speak(mic, interrupt, 1);
    await eventually(
      () => room.out.clears,
      (n) => n >= 1,
      { what: 'clearQueue' },
    );
    // Playback paused at the user's first words (playback_paused: the playout sends nothing more
    // until the words decide); the barge-in then clears what the AudioSource still holds.
    const clearedAt = room.out.clearTimes[0]!;
    const framesAfter = room.out.frameTimes.filter((t) => t > clearedAt && t < clearedAt + 300).length;
    expect(framesAfter).toBeLessThanOrEqual(1);
    // The interrupting utterance is the next turn.
    await eventually(
      () => room.captions().map((c) => c.text),
      (t) => t.includes('Of course.'),
      { what: 'second answer', timeoutMs: 30_000 },
    );
  });
});
