import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { probeElevenLabs } from '../../src/providers/elevenlabs/elevenlabs-probe.js';
import { ElevenLabsTts } from '../../src/providers/elevenlabs/elevenlabs-tts.js';
import { defaultSpeechLimits, guardedTts } from '../../src/providers/guarded-providers.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import type { TtsChunk, TtsStreamChunk, TtsStreamRequest } from '../../src/providers/tts.js';
import { FakeElevenLabs, type ConnectionPlan } from '../support/fake-elevenlabs.js';

/**
 * ElevenLabsTts against a real WebSocket server speaking ElevenLabs' stream-input protocol
 * (test/support/fake-elevenlabs.ts): what goes on the wire, the audio and its segments, and each
 * way the service fails.
 */

let fake: FakeElevenLabs;
let plan: (index: number) => ConnectionPlan;

beforeAll(async () => {
  fake = await FakeElevenLabs.start({ plan: (i) => plan(i) });
});
afterAll(async () => fake.close());
beforeEach(() => {
  plan = () => ({});
});

const tts = (key: string | undefined = fake.apiKey, options = {}) =>
  new ElevenLabsTts({ apiKey: key, url: fake.url }, options);
const request = (extra: Partial<TtsStreamRequest> = {}): TtsStreamRequest => ({
  model: 'eleven_flash_v2_5',
  voice: 'JBFqnCBsd6RMkjVDRZzb',
  speed: 1,
  sampleRate: 16_000,
  ...extra,
});

async function collect<T extends TtsChunk>(chunks: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

async function failure(chunks: AsyncIterable<unknown>): Promise<Error> {
  try {
    for await (const _ of chunks) void _;
  } catch (err) {
    return err as Error;
  }
  throw new Error('the stream did not fail');
}

const last = () => fake.connections.at(-1)!;
const sent = () => last().received.map((r) => r.message);

describe('ElevenLabsTts over the stream-input WebSocket', () => {
  it('streams tokens word by word, flushes each segment, ends with "", and places the audio in its segments', async () => {
    const stream = tts().openStream(request());
    const audio = collect(stream.audio);
    for (const token of ['Sure', ',', ' we', ' op', 'en']) stream.push(token);
    stream.flush();
    stream.push(' at nine. ');
    stream.end();
    const chunks = await audio;

    const conn = last();
    expect(conn).toMatchObject({ voiceId: 'JBFqnCBsd6RMkjVDRZzb', headerKey: fake.apiKey });
    expect(conn.query).toEqual({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000', inactivity_timeout: '20' });
    expect(sent()).toEqual([
      { text: ' ' },
      { text: 'Sure, ' },
      { text: 'we ' },
      { text: 'open ', flush: true },
      { text: ' at nine. ' },
      { text: '' },
    ]);
    // one generation per flush and one at the end, then isFinal and the server's normal close
    expect(conn.generations.map((g) => g.text)).toEqual(['Sure, we open ', ' at nine. ']);
    expect(conn.closed).toMatchObject({ by: 'server', code: 1000 });

    expect(chunks.every((c) => c.sampleRate === 16_000)).toBe(true);
    const ms = (segment: number) =>
      chunks.filter((c) => c.segment === segment).reduce((n, c) => n + c.samples.length, 0) / 16;
    // 10 ms per character the server was given, each run in its own segment, in order
    expect([ms(0), ms(1)]).toEqual([140, 100]);
    expect(chunks.map((c) => c.segment)).toEqual([...chunks.map((c) => c.segment)].sort());
    expect(chunks.some((c) => c.samples.some((s) => Math.abs(s) > 1000))).toBe(true);
  });

  it('asks for PCM at the playout rate and sends a speed only when it is not 1', async () => {
    const phone = await collect(tts().synthesize({ ...request({ sampleRate: 8_000, speed: 1.5 }), text: 'Hello.' }));
    expect(last().query['output_format']).toBe('pcm_8000');
    expect(sent()[0]).toEqual({ text: ' ', voice_settings: { speed: 1.2 } });
    expect(phone.map((c) => c.sampleRate)).toEqual(phone.map(() => 8_000));
    // 10 ms for each of the 7 characters sent ("Hello. ") at 8 kHz
    expect(phone.reduce((n, c) => n + c.samples.length, 0)).toBe(560);

    await collect(tts().synthesize({ ...request({ sampleRate: 48_000 }), text: 'Hi.' }));
    expect(last().query['output_format']).toBe('pcm_44100');
  });

  it('a wrong key: ElevenLabs closes 1008 and the stream fails with its reason', async () => {
    const err = await failure(tts('xi-wrong').synthesize({ ...request(), text: 'Hello.' }));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toBe(
      'elevenlabs: speech failed: the server closed the stream (1008 policy violation: Invalid API key)',
    );
  });

  it('the quota: the error message is the failure', async () => {
    plan = () => ({ quotaExceeded: true });
    const err = await failure(tts().synthesize({ ...request(), text: 'Hello.' }));
    expect(err.message).toBe(
      'elevenlabs: speech failed: This request exceeds your quota of 10000. You have 0 credits remaining. quota_exceeded',
    );
  });

  it('a server fault mid-stream (1011) fails the stream after the audio that came', async () => {
    plan = () => ({ failAfterAudio: 1 });
    const stream = tts().openStream(request());
    const got: TtsStreamChunk[] = [];
    const done = (async () => {
      for await (const chunk of stream.audio) got.push(chunk);
    })();
    stream.push('A long answer that goes on and on. ');
    stream.end();
    await expect(done).rejects.toThrow(
      'elevenlabs: speech failed: the server closed the stream (1011 server error: We are sorry, something went wrong.',
    );
    expect(got).toHaveLength(1);
  });

  it('abort (barge-in) closes the socket from our side and ends the audio quietly', async () => {
    const controller = new AbortController();
    const before = fake.connections.length;
    const stream = tts().openStream(request({ signal: controller.signal }));
    const audio = collect(stream.audio);
    stream.push('Tell me everything, ');
    stream.flush();
    await fake.until(() => fake.connections[before]?.audioAt.length === 1, 5_000, 'first audio');
    controller.abort();
    await audio;
    await fake.until(() => last().closed !== null, 5_000, 'close');
    expect(last().closed).toMatchObject({ by: 'client', code: 1000 });
    expect(sent().at(-1)).not.toEqual({ text: '' });
  });

  it('ElevenLabs closing an idle stream (inactivity_timeout) is a failure with its message', async () => {
    const stream = tts(fake.apiKey, { inactivityTimeoutS: 1 }).openStream(request());
    stream.push('Hello ');
    const err = await failure(stream.audio);
    expect(last().query['inactivity_timeout']).toBe('1');
    expect(err.message).toMatch(
      /^elevenlabs: speech failed: the server closed the stream \(1008 policy violation: Have not received a new text input within the timeout of 1 seconds/,
    );
  });

  it('nobody listening: the stream fails with connection refused', async () => {
    const gone = await FakeElevenLabs.start();
    const url = gone.url;
    await gone.close();
    const err = await failure(new ElevenLabsTts({ apiKey: 'k', url }).synthesize({ ...request(), text: 'Hi.' }));
    expect(err.message).toBe('elevenlabs: speech failed: connection refused');
  });
});

describe('guardedTts over a text stream', () => {
  const limits = { ...defaultSpeechLimits, stallMs: 400, ttsTimeoutMs: 5_000 };

  it('runs no clock while the text is still being written, only while audio is owed', async () => {
    const stream = guardedTts(tts(), limits).openStream(request());
    const audio = collect(stream.audio);
    stream.push('Thinking ');
    // longer than the stall limit with nothing flushed: the LLM's time, not the TTS's
    await new Promise((r) => setTimeout(r, 600));
    stream.push('aloud. ');
    stream.flush();
    stream.end();
    expect((await audio).length).toBeGreaterThan(0);
  });

  it('audio that stops while owed fails the stream as stalled, and the socket is closed', async () => {
    plan = () => ({ stallAfterAudio: 1 });
    const stream = guardedTts(tts(), limits).openStream(request());
    stream.push('A sentence that will not finish. ');
    stream.flush();
    stream.end();
    const err = await failure(stream.audio);
    expect(err.message).toBe('elevenlabs: speech timed out: stalled: nothing for 400 ms');
    await fake.until(() => last().closed !== null, 5_000, 'close');
    expect(last().closed?.by).toBe('client');
  });
});

describe('the /health/providers probe of elevenlabs', () => {
  const config = (env: Record<string, string>) => loadConfig({ PARLEY_ELEVENLABS_URL: fake.url, ...env });

  it('is not configured without a key, ok when GET /v1/user takes the key, an error when it refuses it', async () => {
    const streams = fake.connections.length;
    expect(await probeElevenLabs(config({}), 1_000)).toEqual({
      status: 'not_configured',
      latency_ms: null,
      detail: 'set PARLEY_ELEVENLABS_API_KEY',
    });
    expect(await probeElevenLabs(config({ PARLEY_ELEVENLABS_API_KEY: fake.apiKey }), 1_000)).toMatchObject({
      status: 'ok',
      latency_ms: expect.any(Number),
    });
    expect(await probeElevenLabs(config({ PARLEY_ELEVENLABS_API_KEY: 'xi-revoked' }), 1_000)).toMatchObject({
      status: 'error',
      detail: 'GET /v1/user answered HTTP 401',
    });
    expect(fake.userCalls.slice(-2)).toEqual([{ key: fake.apiKey }, { key: 'xi-revoked' }]);
    // a probe opens no stream: it spends no characters
    expect(fake.connections).toHaveLength(streams);
  });
});
