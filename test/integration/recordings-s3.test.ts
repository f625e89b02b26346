import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../support/admin-client.js';
import { eventually } from '../support/eventually.js';
import { FakeS3 } from '../support/fake-s3.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParleyProcess } from '../support/main-process.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { recordAgentSpeech } from '../support/real-speech.js';
import { hangUp, noise, stream } from '../support/recording-bed.js';
import { readRecording, withoutZeros, type RecordingFile } from '../support/recording-file.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Recordings in an S3-compatible bucket (PARLEY_RECORDINGS_URL): the fake S3 checks every
 * request's SigV4 signature and payload hash as S3 does. A call is spooled on disk while it runs
 * and uploaded at its end; GET serves the bucket's object with ranges; deleting a conversation and
 * retention delete objects; a wrong secret is said in /health and the recording waits in the
 * spool; a process killed mid-call leaves a file the next process repairs and uploads.
 */

const rate = 16_000;
const keys = { accessKeyId: 'AKIAPARLEYTEST', secretAccessKey: 'parley+test/secret' };
let s3: FakeS3;
let redis: TestRedis;
let webhook: HttpReceiver;
let dir: string;
let p: TestParley;
let presetId = '';
const clients: VoiceClient[] = [];
const children: ChildProcess[] = [];
const extra: TestParley[] = [];

const env = (dataDir: string, secret = keys.secretAccessKey): Record<string, string> => ({
  PARLEY_DATA_DIR: dataDir,
  PARLEY_RECORDINGS_URL: s3.recordingsUrl('calls'),
  PARLEY_RECORDINGS_ACCESS_KEY_ID: keys.accessKeyId,
  PARLEY_RECORDINGS_SECRET_ACCESS_KEY: secret,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-recordings-s3-'));
  s3 = await FakeS3.start({ bucket: 'parley-rec', ...keys });
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Okay.' } }));
  p = await startParley(redis, env(join(dir, 'a')));
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'recordings',
      stt: { provider: 'pocketsphinx', model: 'en-us', language: null },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  expect(preset.status).toBe(201);
  presetId = preset.body.id as string;
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const x of extra) await x.close();
  await p?.close();
  await webhook?.close();
  await redis?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function agent(
  on: Pick<TestParley, 'request'>,
  settings: Record<string, unknown>,
): Promise<{ id: string; agent_token: string }> {
  const res = await on.request('POST', '/admin/v1/agents', {
    body: { name: 'recorded', mode: 'passthrough', webhook_url: webhook.url, preset_id: presetId, ...settings },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

async function connect(on: { url: string }, a: { agent_token: string }) {
  const api = adminClient(on.url, testAdminKey);
  const res = await api.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: a.agent_token, user_id: 'caller', transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  const speech = recordAgentSpeech(client);
  await client.untilEvent('ready');
  const session = await api.request('GET', `/admin/v1/sessions/${res.body.session_id as string}`);
  return { client, speech, conversationId: session.body.conversation_id as string };
}

const key = (agentId: string, conversationId: string) => `calls/${agentId}/${conversationId}.wav`;

/** The object once the bucket holds it. */
async function uploaded(agentId: string, conversationId: string): Promise<Buffer> {
  const object = await eventually(
    () => s3.objects.get(key(agentId, conversationId)),
    (o) => o !== undefined,
    { timeoutMs: 20_000, what: 'the upload' },
  );
  expect(object!.payloadSigned).toBe(true);
  return object!.body;
}

/** Reads a WAV held in memory with the disk tests' reader. */
async function parse(bytes: Buffer): Promise<RecordingFile> {
  const path = join(dir, `read-${Math.random().toString(36).slice(2)}.wav`);
  await writeFile(path, bytes);
  return readRecording(path);
}

describe('a recorded call with PARLEY_RECORDINGS_URL', () => {
  let agentId: string;
  let conversationId: string;
  let object: Buffer;
  const get = (headers: Record<string, string> = {}) =>
    fetch(`${p.url}/admin/v1/conversations/${conversationId}/recording`, {
      headers: { 'X-API-Key': testAdminKey, ...headers },
    });

  it('ends in the bucket, byte for byte what was sent and played; the spool is emptied', async () => {
    const a = await agent(p, { recording: 'on', greeting: 'Thank you for calling the recording test line today' });
    agentId = a.id;
    const call = await connect(p, a);
    conversationId = call.conversationId;
    const sent = noise(3_000);
    await stream(call.client, sent);
    await call.client.untilEvent('audio_end');
    // while the call runs its recording is served from the spool
    const live = await get({ Range: 'bytes=0-3' });
    expect(live.status).toBe(206);
    expect(Buffer.from(await live.arrayBuffer()).toString('ascii')).toBe('RIFF');
    await hangUp(call.client);

    object = await uploaded(a.id, conversationId);
    const file = await parse(object);
    expect(file).toMatchObject({ channels: 2, sampleRate: rate });
    expect(file.declaredBytes).toBe(file.fileDataBytes);
    const [caller, agentSide] = file.channel as [Int16Array, Int16Array];
    expect(withoutZeros(caller)).toEqual(sent);
    expect(withoutZeros(agentSide)).toEqual(withoutZeros(call.speech.of(0)));
    await eventually(
      () => readdir(join(dir, 'a', 'recordings', a.id)),
      (names) => names.length === 0,
      { what: 'the spool emptied' },
    );
    const health = await p.request('GET', '/health');
    expect(health.body.recordings).toEqual({
      store: 's3',
      bucket: 's3://parley-rec/calls/',
      status: 'ok',
      detail: null,
    });
  }, 60_000);

  it('GET streams it from the bucket: 200 whole, 206 ranges, 416 past the end, never without the admin key', async () => {
    const size = object.length;
    // the conversation's record says so, from the size noted at the call's end (the spool is gone)
    const record = await p.request('GET', `/admin/v1/conversations/${conversationId}`);
    expect(record.body.recording).toEqual({
      duration_ms: Math.round(((size - 44) / 4 / rate) * 1000),
      bytes: size,
      channels: 2,
    });
    const whole = await get();
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(size));
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(object);
    const head = await get({ Range: 'bytes=0-43' });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-43/${size}`);
    expect(Buffer.from(await head.arrayBuffer())).toEqual(object.subarray(0, 44));
    const tail = await get({ Range: 'bytes=-100' });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(object.subarray(size - 100));
    const middle = await get({ Range: 'bytes=1000-1999' });
    expect(Buffer.from(await middle.arrayBuffer())).toEqual(object.subarray(1000, 2000));
    const past = await get({ Range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
    const anonymous = await fetch(`${p.url}/admin/v1/conversations/${conversationId}/recording`);
    expect(anonymous.status).toBe(401);
  });

  it('deleting the conversation deletes the object', async () => {
    const res = await p.request('DELETE', `/admin/v1/conversations/${conversationId}`);
    expect(res.status).toBe(204);
    expect(s3.objects.has(key(agentId, conversationId))).toBe(false);
    expect((await get()).status).toBe(404);
  });

  it("the sweep deletes the bucket's objects older than their agent keeps them, and only those", async () => {
    const short = await agent(p, { recording: 'caller_only', recording_retention_days: 1 });
    const long = await agent(p, { recording: 'caller_only', recording_retention_days: 30 });
    const forever = await agent(p, { recording: 'caller_only' });
    const keys: string[] = [];
    const conversations: string[] = [];
    for (const a of [short, long, forever]) {
      const call = await connect(p, a);
      await stream(call.client, noise(300, 3));
      await hangUp(call.client);
      await uploaded(a.id, call.conversationId);
      keys.push(key(a.id, call.conversationId));
      conversations.push(call.conversationId);
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const k of keys) s3.objects.get(k)!.lastModified = twoDaysAgo;
    const recordings = p.parley.services.recordings;
    expect(await recordings.sweep()).toBe(1);
    expect(keys.map((k) => s3.objects.has(k))).toEqual([false, true, true]);
    // the expired one's record says it has no recording any more
    const records = await Promise.all(conversations.map((id) => p.request('GET', `/admin/v1/conversations/${id}`)));
    expect(records.map((r) => r.body.recording !== null)).toEqual([false, true, true]);
    expect(await recordings.sweep()).toBe(0);
  }, 60_000);
});

describe('a wrong secret', () => {
  it('is said in /health; the call goes on and its recording waits in the spool, uploaded once the secret is right', async () => {
    const spool = join(dir, 'b');
    const refusedBefore = s3.refused;
    const bad = await startParley(redis, env(spool, 'not-the-secret'));
    extra.push(bad);
    const health = await eventually(
      () => bad.request('GET', '/health'),
      (res) => res.body.recordings?.status === 'error',
      { what: '/health saying the bucket fails' },
    );
    expect(health.status).toBe(200);
    expect(health.body.recordings.detail).toMatch(/SignatureDoesNotMatch/);
    expect(s3.refused).toBeGreaterThan(refusedBefore);

    const a = await agent(bad, { recording: 'caller_only' });
    const call = await connect(bad, a);
    const sent = noise(500, 5);
    await stream(call.client, sent);
    await hangUp(call.client);
    const spooled = join(spool, 'recordings', a.id, `${call.conversationId}.wav`);
    // the upload is refused: the file stays, and GET serves it from the spool
    await eventually(
      () => bad.request('GET', '/health'),
      (res) => res.body.recordings?.status === 'error',
    );
    const served = await fetch(`${bad.url}/admin/v1/conversations/${call.conversationId}/recording`, {
      headers: { 'X-API-Key': testAdminKey },
    });
    expect(served.status).toBe(200);
    expect((await readRecording(spooled)).fileDataBytes).toBe((await served.arrayBuffer()).byteLength - 44);
    expect(s3.objects.has(key(a.id, call.conversationId))).toBe(false);
    await bad.close();
    extra.pop();
    await expect(stat(spooled)).resolves.toBeTruthy();

    // the next process with the right secret uploads what the spool holds
    const good = await startParley(redis, env(spool));
    extra.push(good);
    const object = await eventually(
      async () => {
        await good.parley.services.recordings.sweep();
        return s3.objects.get(key(a.id, call.conversationId));
      },
      (o) => o !== undefined,
      { timeoutMs: 20_000, intervalMs: 200, what: 'the leftover uploaded' },
    );
    expect(withoutZeros((await parse(object!.body)).channel[0]!)).toEqual(sent);
    await expect(stat(spooled)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 90_000);
});

describe('kill -9 mid-call', () => {
  it('the next process repairs the spooled file and uploads it, playable up to the last second written', async () => {
    const spool = join(dir, 'c');
    const settings = {
      ...env(spool),
      PARLEY_SESSION_LEASE_TTL_MS: '1000',
      PARLEY_SESSION_SWEEP_INTERVAL_MS: '200',
      PARLEY_RECORDINGS_SWEEP_INTERVAL_MS: '300',
    };
    const first = await startParleyProcess(redis, settings);
    children.push(first.child);
    const a = await agent(adminClient(first.url, testAdminKey), { recording: 'on' });
    const call = await connect(first, a);
    const sent = noise(2_600, 6);
    await stream(call.client, sent);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    call.client.close();
    const [name] = await readdir(join(spool, 'recordings', a.id));
    expect(name).toBe(`${call.conversationId}.wav`);

    const second = await startParleyProcess(redis, settings);
    children.push(second.child);
    const object = await uploaded(a.id, call.conversationId);
    const file = await parse(object);
    expect(file).toMatchObject({ channels: 2, sampleRate: rate });
    // repaired before the upload: the header covers every whole frame the file holds
    expect(file.declaredBytes).toBe(file.fileDataBytes - (file.fileDataBytes % 4));
    expect(file.declaredBytes).toBeGreaterThanOrEqual(rate * 4);
    const played = withoutZeros(file.channel[0]!);
    expect(played.length).toBeGreaterThan(rate / 2);
    expect(played).toEqual(sent.subarray(0, played.length));
    second.child.kill('SIGTERM');
    await second.exited;
  }, 90_000);
});
