import { mkdtemp, open, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fliteScript } from '../support/flite-speech.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { recordAgentSpeech } from '../support/real-speech.js';
import { TestRedis } from '../support/redis-server.js';
import { firstSound, lastSound, readRecording, withoutZeros } from '../support/recording-file.js';
import { VoiceClient } from '../support/voice-client.js';

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
let dir: string;
let redis: TestRedis;
let webhook: HttpReceiver;
let p: TestParley;
let presetId: string;
const clients: VoiceClient[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-recordings-'));
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Okay.' } }));
  p = await startParley(redis, { PARLEY_DATA_DIR: dir });
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
  await p?.close();
  await webhook?.close();
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

async function agent(settings: Record<string, unknown>): Promise<{ id: string; agent_token: string }> {
  const res = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'recorded', mode: 'passthrough', webhook_url: webhook.url, preset_id: presetId, ...settings },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

async function connect(a: { agent_token: string }) {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: a.agent_token, user_id: 'caller', transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  clients.push(client);
  const speech = recordAgentSpeech(client);
  let firstAudioAt: number | null = null;
  client.ws.on('message', (_data, isBinary) => {
    if (isBinary) firstAudioAt ??= performance.now();
  });
  await client.untilEvent('ready');
  const session = await p.request('GET', `/admin/v1/sessions/${res.body.session_id as string}`);
  return {
    client,
    speech,
    firstAudioAt: () => firstAudioAt!,
    conversationId: session.body.conversation_id as string,
  };
}

/** Quiet noise with no zero sample (below the VAD's floor): every sample of it is findable in the file. */
function noise(ms: number, seed = 1): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1_103_515_245 + 12_345) & 0x7fffffff;
    out[i] = ((x >> 8) % 60) + 20 * ((x & 1) === 0 ? 1 : -1);
  }
  return out.map((s) => (s === 0 ? 7 : s));
}

/** Rewrites a recording's header sizes to `dataBytes` (as a flush not yet patched leaves them). */
async function truncateHeader(path: string, dataBytes: number): Promise<void> {
  const file = await open(path, 'r+');
  const sizes = Buffer.alloc(4);
  sizes.writeUInt32LE(36 + dataBytes, 0);
  await file.write(sizes, 0, 4, 4);
  sizes.writeUInt32LE(dataBytes, 0);
  await file.write(sizes, 0, 4, 40);
  await file.close();
}

/** Streams `samples` at real time; resolves with the time its first frame was sent. */
async function stream(client: VoiceClient, samples: Int16Array): Promise<number> {
  const at = performance.now();
  await client.stream({ samples, sampleRate: rate });
  return at;
}

async function hangUp(client: VoiceClient): Promise<void> {
  client.sendJson({ type: 'end' });
  await client.untilEvent('ended');
}

describe('a recorded voice session', () => {
  it("holds the caller's audio and the agent's as played, each in time, byte for byte", async () => {
    // one piece of speech (no clause to cut at): the client's bytes play back to back
    const a = await agent({ recording: 'on', greeting: 'Thank you for calling the recording test line today' });
    const { client, speech, firstAudioAt, conversationId } = await connect(a);
    const sent = noise(5_000);
    const sentAt = await stream(client, sent);
    await client.untilEvent('audio_end');
    await hangUp(client);

    const file = await readRecording(join(dir, 'recordings', a.id, `${conversationId}.wav`));
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
    const a = await agent({
      recording: 'on',
      greeting:
        'We serve breakfast and lunch and dinner every day of the week with seasonal dishes and fresh bread and a long list of wines from many regions',
    });
    const { client, speech, firstAudioAt, conversationId } = await connect(a);
    const quiet = new Int16Array(3_200);
    while (client.audio.length < 40) await stream(client, quiet); // 0.8 s of the greeting
    const words = fliteScript('slt', 'stop, wait a moment i have a question', 300);
    await stream(client, words);
    await client.untilEvent('playback_paused');
    const pausedAt = client.eventsOf('playback_paused')[0]!.at;
    await client.untilEvent('interrupted');
    await hangUp(client);

    const [, agentSide] = (await readRecording(join(dir, 'recordings', a.id, `${conversationId}.wav`))).channel as [
      Int16Array,
      Int16Array,
    ];
    const heard = speech.of(0);
    const kept = withoutZeros(agentSide);
    // what the client played before it paused, and nothing of the rest of the greeting it had been sent
    expect(kept.length).toBeLessThan(withoutZeros(heard).length);
    expect(kept).toEqual(withoutZeros(heard).subarray(0, kept.length));
    // cut where the client paused its player
    const agentStart = firstSound(agentSide) - firstSound(heard);
    const cut = lastSound(agentSide) + 1;
    const expected = ((pausedAt - firstAudioAt()) * rate) / 1000;
    expect(Math.abs(cut - agentStart - expected)).toBeLessThanOrEqual(timingSlack);
  }, 60_000);
});

describe('GET /admin/v1/conversations/{id}/recording', () => {
  let url: string;
  let size: number;
  let path: string;
  let silentConversation: string;

  beforeAll(async () => {
    const a = await agent({ recording: 'caller_only' });
    const { client, conversationId } = await connect(a);
    await stream(client, noise(1_500, 2));
    await hangUp(client);
    url = `${p.url}/admin/v1/conversations/${conversationId}/recording`;
    path = join(dir, 'recordings', a.id, `${conversationId}.wav`);
    size = (await stat(path)).size;
    const off = await agent({});
    const other = await connect(off);
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
    const conversation = await p.request('GET', `/admin/v1/conversations/${url.split('/').at(-2)!}`);
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
    const none = await p.request('GET', `/admin/v1/conversations/${silentConversation}/recording`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('recording_not_found');
    const unknown = await p.request('GET', '/admin/v1/conversations/cnv_01jd3n6v8m0000000000000000/recording');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('a conversation whose session is still active is not deleted (409), nor is its recording', async () => {
    const a = await agent({ recording: 'on' });
    const { client, conversationId } = await connect(a);
    const res = await p.request('DELETE', `/admin/v1/conversations/${conversationId}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    await hangUp(client);
    expect((await stat(join(dir, 'recordings', a.id, `${conversationId}.wav`))).size).toBeGreaterThanOrEqual(44);
  }, 30_000);

  it('deleting the conversation deletes its recording', async () => {
    const conversationId = url.split('/').at(-2)!;
    const res = await p.request('DELETE', `/admin/v1/conversations/${conversationId}`);
    expect(res.status).toBe(204);
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await get()).status).toBe(404);
    expect((await p.request('GET', `/admin/v1/conversations/${conversationId}`)).status).toBe(404);
    expect((await p.request('DELETE', `/admin/v1/conversations/${conversationId}`)).status).toBe(404);
  });
});

describe('recording settings and retention', () => {
  it('validates the settings; the default is off', async () => {
    const bad = await p.request('POST', '/admin/v1/agents', {
      body: { name: 'x', recording: 'sometimes', recording_retention_days: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.recording',
      'body.recording_retention_days',
    ]);
    const plain = await p.request('POST', '/admin/v1/agents', { body: { name: 'x' } });
    expect(plain.body).toMatchObject({ recording: 'off', recording_retention_days: null });
  });

  it('the sweep deletes recordings older than their agent keeps them, and only those', async () => {
    const short = await agent({ recording: 'caller_only', recording_retention_days: 1 });
    const long = await agent({ recording: 'caller_only', recording_retention_days: 30 });
    const forever = await agent({ recording: 'caller_only' });
    const paths: string[] = [];
    for (const a of [short, long, forever]) {
      const { client, conversationId } = await connect(a);
      await stream(client, noise(300, 3));
      await hangUp(client);
      paths.push(join(dir, 'recordings', a.id, `${conversationId}.wav`));
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const path of paths) await utimes(path, twoDaysAgo, twoDaysAgo);
    const recordings = p.parley.services.recordings;
    expect(await recordings.sweep()).toBe(1);
    await expect(stat(paths[0]!)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(paths[1]!)).resolves.toBeTruthy();
    await expect(stat(paths[2]!)).resolves.toBeTruthy();
    expect(await recordings.sweep()).toBe(0); // idempotent
  }, 60_000);

  it('the sweep repairs the header of a recording a killed process left behind', async () => {
    const a = await agent({ recording: 'on' });
    const { client, conversationId } = await connect(a);
    await stream(client, noise(300, 4));
    await hangUp(client);
    const path = join(dir, 'recordings', a.id, `${conversationId}.wav`);
    // what a kill -9 between a flush's data and its header leaves: sizes a second behind the data
    const whole = (await readRecording(path)).fileDataBytes;
    await truncateHeader(path, Math.max(0, whole - rate * 4));
    const minuteAgo = new Date(Date.now() - 120_000);
    await utimes(path, minuteAgo, minuteAgo);
    expect(await p.parley.services.recordings.sweep()).toBe(0);
    const repaired = await readRecording(path);
    expect(repaired.declaredBytes).toBe(whole);
  }, 60_000);
});
