import { stat, utimes } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { testAdminKey } from '../support/parley.js';
import { hangUp, noise, recordingBed, stream } from '../support/recording-bed.js';

/**
 * The conversation record says whether it has a recording: `recording` is null when the call was
 * not recorded (or its recording is gone), else `{duration_ms, bytes, channels}` of the file
 * `GET …/recording` serves, the same on the conversation, in the list and on the session.
 */

const bed = recordingBed();

interface RecordingFacts {
  duration_ms: number;
  bytes: number;
  channels: number;
}

/** The conversation's `recording` as each Admin API route that returns the record tells it (all must agree). */
async function recordingOf(agentId: string, conversationId: string): Promise<RecordingFacts | null> {
  const one = await bed.p.request('GET', `/admin/v1/conversations/${conversationId}`);
  expect(one.status).toBe(200);
  const list = await bed.p.request('GET', `/admin/v1/conversations?agent_id=${agentId}&limit=100`);
  const listed = (list.body.data as { id: string; recording: unknown }[]).find((c) => c.id === conversationId);
  const session = await bed.p.request('GET', `/admin/v1/sessions/${one.body.session_id as string}`);
  expect(listed?.recording).toEqual(one.body.recording);
  expect(session.body.conversation.recording).toEqual(one.body.recording);
  return one.body.recording as RecordingFacts | null;
}

/** 16 kHz PCM16: the duration of a WAV file of `bytes` with `channels`. */
const durationMs = (bytes: number, channels: number) => Math.round(((bytes - 44) / (2 * channels) / 16_000) * 1000);

describe("the conversation record's `recording`", () => {
  it('is null for a call that was not recorded, and GET …/recording answers 404 for it', async () => {
    const a = await bed.agent({});
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(300));
    expect(await recordingOf(a.id, conversationId)).toBeNull();
    await hangUp(client);
    expect(await recordingOf(a.id, conversationId)).toBeNull();
    const res = await bed.p.request('GET', `/admin/v1/conversations/${conversationId}/recording`);
    expect(res.status).toBe(404);
  }, 60_000);

  it('tells the file of a recorded call: while it is written, then its final size and duration', async () => {
    const a = await bed.agent({ recording: 'on' });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(1_500, 5));
    // live: the file as written so far (flushed every second)
    const live = await recordingOf(a.id, conversationId);
    expect(live).toMatchObject({ channels: 2 });
    expect(live!.bytes).toBeGreaterThanOrEqual(44);
    await hangUp(client);
    const { size } = await stat(bed.path(a.id, conversationId));
    expect(await recordingOf(a.id, conversationId)).toEqual({
      duration_ms: durationMs(size, 2),
      bytes: size,
      channels: 2,
    });
    expect(durationMs(size, 2)).toBeGreaterThanOrEqual(1_500);
    const wav = await fetch(`${bed.p.url}/admin/v1/conversations/${conversationId}/recording`, {
      headers: { 'X-API-Key': testAdminKey },
    });
    expect(wav.headers.get('content-length')).toBe(String(size));
  }, 60_000);

  it('one channel for caller_only', async () => {
    const a = await bed.agent({ recording: 'caller_only' });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(600, 6));
    await hangUp(client);
    const { size } = await stat(bed.path(a.id, conversationId));
    expect(await recordingOf(a.id, conversationId)).toEqual({
      duration_ms: durationMs(size, 1),
      bytes: size,
      channels: 1,
    });
  }, 60_000);

  it('a record without the noted size (its process stopped mid-call, or older than the field) is told from the file', async () => {
    const a = await bed.agent({ recording: 'on' });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(600, 7));
    await hangUp(client);
    const { size } = await stat(bed.path(a.id, conversationId));
    const { store } = bed.p.parley;
    await store.redis.hDel(store.keys.conversation(conversationId), ['recording_bytes', 'recording_channels']);
    expect(await recordingOf(a.id, conversationId)).toEqual({
      duration_ms: durationMs(size, 2),
      bytes: size,
      channels: 2,
    });
  }, 60_000);

  it('is null once retention has deleted the recording', async () => {
    const a = await bed.agent({ recording: 'caller_only', recording_retention_days: 1 });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(300, 8));
    await hangUp(client);
    const path = bed.path(a.id, conversationId);
    expect(await recordingOf(a.id, conversationId)).not.toBeNull();
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await utimes(path, twoDaysAgo, twoDaysAgo);
    expect(await bed.p.parley.services.recordings.sweep()).toBe(1);
    expect(await recordingOf(a.id, conversationId)).toBeNull();
  }, 60_000);
});
