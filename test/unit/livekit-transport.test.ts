import { AudioFrame } from '@livekit/rtc-node';
import type { ClaimGrants } from 'livekit-server-sdk';
import { pino } from 'pino';
import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ClientMessage } from '../../src/sessions/transport/messages.js';
import { LivekitTransport } from '../../src/realtime/livekit/livekit-transport.js';
import { FakeRoom } from '../support/fake-livekit/fake-room.js';

/**
 * The LiveKit room bridge as a MediaTransport, with the room stood in for at its interface: what
 * the session sends becomes captions, state and a cleared queue; what the user does becomes input.
 */

const logger = pino({ level: 'silent' });

/** A room the user has joined (with or without a microphone) and a transport on it. */
async function bridge(microphone: boolean) {
  const room = new FakeRoom('room-1', 'agent-1', 'ws://livekit', {} as ClaimGrants, false);
  const out = await room.publishAudio(24_000);
  if (microphone) room.userJoins('user-1');
  else room.userJoinsWithoutMicrophone('user-1');
  const user = { identity: 'user-1', microphone: room.microphone('user-1', 16_000) };
  const transport = new LivekitTransport(room, user, out, 16_000, 24_000, logger);
  return { room, transport };
}

/** Lets queued caption sends run. */
const settle = () => new Promise((r) => setTimeout(r, 10));

const captionRows = (room: FakeRoom) =>
  room.captions().map((c) => [c.text, c.attributes['lk.transcription_final'], c.attributes['lk.segment_id']]);

describe('LivekitTransport captions', () => {
  it('captions an answer as it is produced, in one segment per turn, final on the whole answer', async () => {
    const { room, transport } = await bridge(true);
    transport.send({ type: 'transcript', turn: 1, text: 'Book a table.' });
    transport.send({ type: 'response', turn: 1, text: 'Sure.', final: false });
    transport.send({ type: 'audio_start', turn: 1, sample_rate: 24_000 });
    transport.send({ type: 'response', turn: 1, text: 'Sure. For what time?', final: false });
    transport.send({ type: 'response', turn: 1, text: 'Sure. For what time?', final: true });
    transport.send({ type: 'audio_end', turn: 1 });
    transport.send({ type: 'response', turn: 2, text: 'Noted.', final: true });
    await settle();
    const [user, a, b, c, next] = room.captions();
    expect(user).toMatchObject({
      text: 'Book a table.',
      senderIdentity: 'user-1',
      attributes: { 'lk.transcription_final': 'true', 'lk.transcribed_track_id': 'TR_user-1' },
    });
    const segment = a!.attributes['lk.segment_id'];
    expect(captionRows(room).slice(1)).toEqual([
      ['Sure.', 'false', segment],
      ['Sure. For what time?', 'false', segment],
      ['Sure. For what time?', 'true', segment],
      ['Noted.', 'true', expect.stringMatching(/^SG_/)],
    ]);
    expect(new Set([user, a, next].map((x) => x!.attributes['lk.segment_id'])).size).toBe(3);
    expect([a, b, c].every((x) => x!.attributes['lk.transcribed_track_id'] === 'TR_agent')).toBe(true);
    expect(room.states).toEqual(['thinking', 'speaking', 'listening']);
  });

  it('barge-in clears the queue and closes the cut answer’s caption with what it had reached', async () => {
    const { room, transport } = await bridge(true);
    transport.send({ type: 'response', turn: 3, text: 'We open at nine.', final: false });
    transport.send({ type: 'audio_start', turn: 3, sample_rate: 24_000 });
    transport.send({ type: 'interrupted', turn: 3 });
    await settle();
    const [first, last] = captionRows(room);
    expect(first).toEqual(['We open at nine.', 'false', expect.any(String)]);
    expect(last).toEqual(['We open at nine.', 'true', first![2]]);
    expect(room.out.clears).toBe(1);
    expect(room.states.at(-1)).toBe('listening');
    // An answer already final gets no second final caption when barge-in comes after it.
    transport.send({ type: 'response', turn: 4, text: 'Done.', final: true });
    transport.send({ type: 'interrupted', turn: 4 });
    await settle();
    expect(
      captionRows(room)
        .slice(2)
        .map(([text, final]) => [text, final]),
    ).toEqual([['Done.', 'true']]);
  });
});

describe('LivekitTransport input', () => {
  it('takes typed turns before any microphone, then reads the microphone once it is published', async () => {
    const { room, transport } = await bridge(false);
    const typed = firstValueFrom(transport.messages$);
    room.chat('Hello by text', 'user-1');
    expect(await typed).toEqual({ type: 'text', text: 'Hello by text' } satisfies ClientMessage);
    // A transcript before the microphone exists names no track.
    transport.send({ type: 'transcript', turn: 1, text: 'Hello by text' });
    await settle();
    expect(room.captions()[0]!.attributes).not.toHaveProperty('lk.transcribed_track_id');

    const frames = firstValueFrom(transport.audio$.pipe(take(2), toArray()));
    const mic = room.publishMicrophone();
    mic.push(new AudioFrame(new Int16Array(160).fill(7), 16_000, 1, 160));
    mic.push(new AudioFrame(new Int16Array(160).fill(9), 16_000, 1, 160));
    const got = await frames;
    expect(got.map((f) => [f.sampleRate, f.samples.length, f.samples[0]])).toEqual([
      [16_000, 160, 7],
      [16_000, 160, 9],
    ]);
    transport.send({ type: 'transcript', turn: 2, text: 'Now speaking' });
    await settle();
    expect(room.captions()[1]!.attributes['lk.transcribed_track_id']).toBe('TR_user-1');
  });

  it('closing before the microphone arrives leaves it unread', async () => {
    const { room, transport } = await bridge(false);
    const completed = firstValueFrom(transport.audio$.pipe(toArray()));
    transport.close();
    const mic = room.publishMicrophone();
    await settle();
    mic.push(new AudioFrame(new Int16Array(160), 16_000, 1, 160));
    expect(await completed).toEqual([]);
    // The late microphone was closed at once: its queue ended, so iterating it finishes.
    const rest: unknown[] = [];
    for await (const f of mic) rest.push(f);
    expect(rest).toEqual([]);
  });
});
