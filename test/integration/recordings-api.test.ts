import { stat, utimes } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { testAdminKey } from '../support/parley.js';
import { hangUp, noise, recordingBed, setHeaderSizes, stream } from '../support/recording-bed.js';
import { readRecording } from '../support/recording-file.js';

/**
 * The recordings' API: the GET route (ranges, the admin key, 404s), deleting a conversation with
 * its recording, the agent settings, and the retention sweep (with its repair of killed files).
 */

const rate = 16_000;
const bed = recordingBed();

describe('GET /admin/v1/conversations/{id}/recording', () => {
  let url: string;
  let size: number;
  let path: string;
  let silentConversation: string;

  beforeAll(async () => {
    const a = await bed.agent({ recording: 'caller_only' });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(1_500, 2));
    await hangUp(client);
    url = `${bed.p.url}/admin/v1/conversations/${conversationId}/recording`;
    path = bed.path(a.id, conversationId);
    size = (await stat(path)).size;
    const off = await bed.agent({});
    const other = await bed.connect(off);
    await hangUp(other.client);
    silentConversation = other.conversationId;
  }, 60_000);

  const get = (headers: Record<string, string> = {}) =>
    fetch(url, { headers: { 'X-API-Key': testAdminKey, ...headers } });

  it('streams the whole file as audio/wav with Accept-Ranges', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(size));
    // when its first sample was, on the wall clock: at or after the conversation began
    const startedAt = Date.parse(res.headers.get('x-recording-started-at')!);
    const conversation = await bed.p.request('GET', `/admin/v1/conversations/${url.split('/').at(-2)!}`);
    expect(startedAt).toBeGreaterThanOrEqual(Date.parse(conversation.body.created_at as string));
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(size);
    expect(body.toString('ascii', 0, 4)).toBe('RIFF');
    expect(body.readUInt16LE(22)).toBe(1); // caller_only: one channel
  });

  it('answers byte ranges with 206 and Content-Range; a range past the end with 416', async () => {
    const whole = Buffer.from(await (await get()).arrayBuffer());
    const first = await get({ Range: 'bytes=0-43' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-43/${size}`);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(whole.subarray(0, 44));
    const tail = await get({ Range: 'bytes=-100' });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(size - 100));
    const open = await get({ Range: `bytes=${size - 10}-` });
    expect(open.status).toBe(206);
    expect((await open.arrayBuffer()).byteLength).toBe(10);
    const past = await get({ Range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(((await past.json()) as { error: { code: string } }).error.code).toBe('range_not_satisfiable');
  });

  it('is never served without the admin key', async () => {
    for (const headers of [{}, { 'X-API-Key': 'wrong-key' }] as Record<string, string>[]) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('unauthorized');
    }
  });

  it('404 recording_not_found for a call that was not recorded, not_found for an unknown conversation', async () => {
    const none = await bed.p.request('GET', `/admin/v1/conversations/${silentConversation}/recording`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('recording_not_found');
    const unknown = await bed.p.request('GET', '/admin/v1/conversations/cnv_01jd3n6v8m0000000000000000/recording');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('a conversation whose session is still active is not deleted (409), nor is its recording', async () => {
    const a = await bed.agent({ recording: 'on' });
    const { client, conversationId } = await bed.connect(a);
    const res = await bed.p.request('DELETE', `/admin/v1/conversations/${conversationId}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    await hangUp(client);
    expect((await stat(bed.path(a.id, conversationId))).size).toBeGreaterThanOrEqual(44);
  }, 30_000);

  it('deleting the conversation deletes its recording', async () => {
    const conversationId = url.split('/').at(-2)!;
    const res = await bed.p.request('DELETE', `/admin/v1/conversations/${conversationId}`);
    expect(res.status).toBe(204);
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await get()).status).toBe(404);
    expect((await bed.p.request('GET', `/admin/v1/conversations/${conversationId}`)).status).toBe(404);
    expect((await bed.p.request('DELETE', `/admin/v1/conversations/${conversationId}`)).status).toBe(404);
  });
});

describe('recording settings and retention', () => {
  it('validates the settings; the default is off', async () => {
    const bad = await bed.p.request('POST', '/admin/v1/agents', {
      body: { name: 'x', recording: 'sometimes', recording_retention_days: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.recording',
      'body.recording_retention_days',
    ]);
    const plain = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'x' } });
    expect(plain.body).toMatchObject({ recording: 'off', recording_retention_days: null });
  });

  it('the sweep deletes recordings older than their agent keeps them, and only those', async () => {
    const short = await bed.agent({ recording: 'caller_only', recording_retention_days: 1 });
    const long = await bed.agent({ recording: 'caller_only', recording_retention_days: 30 });
    const forever = await bed.agent({ recording: 'caller_only' });
    const paths: string[] = [];
    for (const a of [short, long, forever]) {
      const { client, conversationId } = await bed.connect(a);
      await stream(client, noise(300, 3));
      await hangUp(client);
      paths.push(bed.path(a.id, conversationId));
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const path of paths) await utimes(path, twoDaysAgo, twoDaysAgo);
    const recordings = bed.p.parley.services.recordings;
    expect(await recordings.sweep()).toBe(1);
    await expect(stat(paths[0]!)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(paths[1]!)).resolves.toBeTruthy();
    await expect(stat(paths[2]!)).resolves.toBeTruthy();
    expect(await recordings.sweep()).toBe(0); // idempotent
  }, 60_000);

  it('the sweep repairs the header of a recording a killed process left behind', async () => {
    const a = await bed.agent({ recording: 'on' });
    const { client, conversationId } = await bed.connect(a);
    await stream(client, noise(300, 4));
    await hangUp(client);
    const path = bed.path(a.id, conversationId);
    // what a kill -9 between a flush's data and its header leaves: sizes a second behind the data
    const whole = (await readRecording(path)).fileDataBytes;
    await setHeaderSizes(path, Math.max(0, whole - rate * 4));
    const minuteAgo = new Date(Date.now() - 120_000);
    await utimes(path, minuteAgo, minuteAgo);
    expect(await bed.p.parley.services.recordings.sweep()).toBe(0);
    const repaired = await readRecording(path);
    expect(repaired.declaredBytes).toBe(whole);
  }, 60_000);
});
