/**
 * The `openai-realtime` STT against a fake of OpenAI's Realtime transcription API on a real
 * WebSocket server (test/support/fake-openai-realtime.ts): what goes on the wire, the transcript,
 * and every way the server can fail an utterance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Resampler } from '../../src/audio/resampler.js';
import { ProviderTimeout } from '../../src/providers/call-deadline.js';
import { probeRealtime } from '../../src/providers/openai-realtime/realtime-probe.js';
import { OpenAiRealtimeStt, type OpenAiRealtimeSttOptions } from '../../src/providers/openai-realtime/realtime-stt.js';
import { ProviderError, ProviderNotConfigured } from '../../src/providers/provider-error.js';
import type { SttStream } from '../../src/providers/stt.js';
import { eventually } from '../support/eventually.js';
import { FakeOpenAiRealtime, serverError, type FakeRealtimeOptions } from '../support/fake-openai-realtime.js';
import { freePort } from '../support/redis-server.js';

const fakes: FakeOpenAiRealtime[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

async function fake(options: FakeRealtimeOptions = {}): Promise<FakeOpenAiRealtime> {
  const started = await FakeOpenAiRealtime.start(options);
  fakes.push(started);
  return started;
}

const stt = (server: FakeOpenAiRealtime, apiKey = 'sk-test', options: Partial<OpenAiRealtimeSttOptions> = {}) =>
  new OpenAiRealtimeStt({ url: server.url, apiKey }, options);

/** A 16 kHz tone with a slow sweep, `ms` long. */
const speech = (ms: number) =>
  Int16Array.from({ length: ms * 16 }, (_, i) =>
    Math.round(6000 * Math.sin((2 * Math.PI * (200 + i / 100) * i) / 16_000)),
  );

const request = { sampleRate: 16_000, model: 'gpt-4o-transcribe', language: 'en-US' };

/** Writes `audio` in the VAD's 32 ms windows, one event-loop turn apart. */
async function feed(stream: SttStream, audio: Int16Array): Promise<void> {
  for (let at = 0; at < audio.length; at += 512) {
    stream.write(audio.subarray(at, at + 512));
    await new Promise((r) => setImmediate(r));
  }
}

describe('OpenAiRealtimeStt streaming an utterance', () => {
  it('configures a transcription session, appends the audio at 24 kHz as it comes, commits, and returns the transcript', async () => {
    const server = await fake({ script: ['  I would like a table for four.  '], handshakeDelayMs: 50 });
    const stream = stt(server).openStream({ ...request, phrases: ['yes please', 'speak to a person'] });
    const audio = speech(1200);
    await feed(stream, audio);
    const text = stream.finish();
    await eventually(
      () => stream.partial,
      (p) => p.length > 0,
      { what: 'a partial transcript from the deltas' },
    );
    expect(await text).toBe('I would like a table for four.');
    expect(stream.partial).toBe('  I would like a table for four.  ');

    const [c] = server.connections;
    expect(c!.url).toBe('/v1/realtime?intent=transcription');
    expect(c!.headers.authorization).toBe('Bearer sk-test');
    expect(c!.headers['openai-beta']).toBeUndefined(); // the GA interface
    expect(c!.session).toEqual({
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24_000 },
          transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: 'yes please, speak to a person' },
          turn_detection: null,
        },
      },
    });
    // the update first (audio written while the session opened waited for session.updated), one commit last
    expect(c!.received[0]).toBe('session.update');
    expect(c!.received.at(-1)).toBe('input_audio_buffer.commit');
    expect(c!.appends).toBeGreaterThan(30);
    // exactly the audio, resampled to 24 kHz
    const resampler = new Resampler(16_000, 24_000);
    const pieces = [resampler.push(audio), resampler.flush()];
    expect(c!.committed).toEqual([Int16Array.from([...pieces[0]!, ...pieces[1]!])]);
    await eventually(
      () => c!.closed,
      (closed) => closed !== null,
      { what: 'the socket closed' },
    );
    expect(c!.closed).toEqual({ code: 1000, byClient: true });
  });

  it('transcribes a whole utterance at once, in 1 s appends', async () => {
    const server = await fake({ script: ['what time do you open'] });
    const text = await stt(server).transcribe({ ...request, audio: speech(2500), language: null });
    expect(text).toBe('what time do you open');
    const [c] = server.connections;
    expect(c!.appends).toBe(4); // three 1 s pieces and the resampler's tail
    expect(c!.committed[0]!.length).toBe(2500 * 24);
    expect((c!.session as { audio: { input: { transcription: object } } }).audio.input.transcription).toEqual({
      model: 'gpt-4o-transcribe',
    });
  });

  it('cancel clears the buffer and closes the socket, committing nothing', async () => {
    const server = await fake();
    const stream = stt(server).openStream(request);
    await feed(stream, speech(300));
    await eventually(
      () => server.connections[0]?.appends ?? 0,
      (n) => n > 0,
    );
    stream.cancel();
    const c = await eventually(
      () => server.connections[0]!,
      (c) => c.closed !== null,
      { what: 'the close' },
    );
    expect(c.received).toContain('input_audio_buffer.clear');
    expect(c.received).not.toContain('input_audio_buffer.commit');
    expect(c.closed).toEqual({ code: 1000, byClient: true });
    expect(server.open).toBe(0);
  });

  it('under 100 ms of audio is no words: nothing is committed (the API would refuse it)', async () => {
    const server = await fake();
    expect(await stt(server).transcribe({ ...request, audio: speech(60) })).toBe('');
    await eventually(
      () => server.open,
      (n) => n === 0,
    );
    expect(server.connections.flatMap((c) => c.received)).not.toContain('input_audio_buffer.commit');
  });
});

describe('OpenAiRealtimeStt failures: a ProviderError for that utterance, the socket closed', () => {
  /**
   * Streams 600 ms, then finishes: the rejection, and whether the stream said it had given up (it
   * never does: its turn fails at finish(), the utterance is not sent again).
   */
  async function failingStream(server: FakeOpenAiRealtime, options: Partial<OpenAiRealtimeSttOptions> = {}) {
    const stream = stt(server, 'sk-test', options).openStream(request);
    await feed(stream, speech(600));
    await new Promise((r) => setTimeout(r, 50));
    const healthy = stream.healthy;
    const err = await stream.finish().then(
      () => null,
      (e: unknown) => e,
    );
    return { healthy, err };
  }

  it('a refused key: HTTP 401 at the handshake', async () => {
    const server = await fake({ apiKey: 'sk-right-key' });
    const { healthy, err } = await failingStream(server);
    expect(healthy).toBe(true);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toBe(
      'openai-realtime: the server refused the key (HTTP 401: Incorrect API key provided: *******.); check OPENAI_API_KEY',
    );
    await expect(stt(server).transcribe({ ...request, audio: speech(500) })).rejects.toThrow(/HTTP 401/);
    expect(server.connections).toHaveLength(0);
  });

  it('an error event mid-stream', async () => {
    const server = await fake({ script: [{ fault: 'error', error: serverError }] });
    const { healthy, err } = await failingStream(server);
    expect(healthy).toBe(true);
    expect((err as Error).message).toBe(
      'openai-realtime: the server reported an error: server_error (The server had an error while processing your request. Sorry about that!)',
    );
    await eventually(
      () => server.connections[0]!.closed,
      (c) => c !== null,
    );
    expect(server.connections[0]!.closed).toEqual({ code: 1000, byClient: true });
  });

  it('the server closing the socket mid-stream', async () => {
    const server = await fake({ script: [{ fault: 'close', code: 1011, reason: 'internal error' }] });
    const { healthy, err } = await failingStream(server);
    expect(healthy).toBe(true);
    expect((err as Error).message).toBe(
      'openai-realtime: the server closed the connection (code 1011: internal error)',
    );
  });

  it('a failed transcription after the commit', async () => {
    const error = {
      type: 'invalid_request_error',
      code: 'audio_unintelligible',
      message: 'Audio could not be decoded.',
    };
    const server = await fake({ script: [{ fault: 'failed', error }] });
    const { healthy, err } = await failingStream(server);
    expect(healthy).toBe(true);
    expect((err as Error).message).toBe(
      'openai-realtime: transcription failed: audio_unintelligible (Audio could not be decoded.)',
    );
  });

  it('a server that goes quiet after the commit', async () => {
    const server = await fake({ script: [{ fault: 'stall' }] });
    const { err } = await failingStream(server, { stallMs: 200 });
    expect(err).toBeInstanceOf(ProviderTimeout);
    expect((err as Error).message).toBe('openai-realtime: timed out: nothing from the server for 200 ms');
    await eventually(
      () => server.open,
      (n) => n === 0,
      { what: 'the socket closed' },
    );
  });

  it('a session that does not open in time, and audio piling up meanwhile', async () => {
    const slow = await fake({ handshakeDelayMs: 1_000 });
    const late = await failingStream(slow, { connectTimeoutMs: 100 });
    expect(late.err).toBeInstanceOf(ProviderTimeout);
    expect((late.err as Error).message).toBe('openai-realtime: timed out: no transcription session within 100 ms');
    const behind = await failingStream(slow, { maxLagMs: 300 });
    expect((behind.err as Error).message).toMatch(/^openai-realtime: behind real time: \d+ ms of audio not sent yet/);
  });

  it('a server nobody listens on, an aborted call, and no key at all', async () => {
    const port = await freePort();
    const nowhere = new OpenAiRealtimeStt({ url: `ws://127.0.0.1:${port}/v1/realtime`, apiKey: 'sk-test' });
    await expect(nowhere.transcribe({ ...request, audio: speech(500) })).rejects.toThrow(
      `openai-realtime: could not reach 127.0.0.1:${port}: connection refused`,
    );

    const server = await fake({ script: [{ fault: 'stall' }] });
    const abort = new AbortController();
    const call = stt(server).transcribe({ ...request, audio: speech(500), signal: abort.signal });
    await eventually(
      () => server.connections[0]?.received ?? [],
      (r) => r.includes('input_audio_buffer.commit'),
    );
    abort.abort(new Error('barge-in'));
    await expect(call).rejects.toThrow('barge-in');
    await eventually(
      () => server.open,
      (n) => n === 0,
      { what: 'the socket closed' },
    );

    const unset = new OpenAiRealtimeStt({ url: undefined, apiKey: undefined });
    expect(() => unset.openStream(request)).toThrow(ProviderNotConfigured);
    await expect(unset.transcribe({ ...request, audio: speech(500) })).rejects.toThrow(
      /not configured: set OPENAI_API_KEY .*, or PARLEY_OPENAI_REALTIME_URL/,
    );
  });
});

describe('the health probe and the fake itself', () => {
  it('probes by opening a session and closing it at session.created, sending no audio', async () => {
    const server = await fake();
    const ok = await probeRealtime({ url: server.url, apiKey: 'sk-test' }, 2_000);
    expect(ok).toMatchObject({ status: 'ok', latency_ms: expect.any(Number) });
    expect(ok.detail).toMatch(/^transcription session at 127\.0\.0\.1:\d+$/);
    await eventually(
      () => server.open,
      (n) => n === 0,
    );
    expect(server.connections[0]!.received).toEqual([]);
    const refused = await probeRealtime({ url: server.url, apiKey: 'sk-wrong' }, 2_000);
    expect(refused).toMatchObject({ status: 'error', latency_ms: null });
    expect(refused.detail).toContain('HTTP 401');
    const quiet = await probeRealtime({ url: (await fake({ handshakeDelayMs: 1_000 })).url, apiKey: 'sk-test' }, 100);
    expect(quiet).toEqual({ status: 'error', latency_ms: null, detail: 'no session.created within 100 ms' });
    expect(await probeRealtime({ url: undefined, apiKey: undefined }, 100)).toMatchObject({ status: 'not_configured' });
  });

  it('speaks the beta form to a client that asks for it (OpenAI-Beta: realtime=v1), and refuses the other', async () => {
    const server = await fake();
    const ws = new WebSocket(`${server.url}?intent=transcription`, {
      headers: { Authorization: 'Bearer sk-test', 'OpenAI-Beta': 'realtime=v1' },
    });
    const events: { type: string; error?: { code: string } }[] = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data)) as (typeof events)[number]));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'transcription_session.update', session: { input_audio_format: 'pcm16' } }));
    ws.send(JSON.stringify({ type: 'session.update', session: { type: 'transcription' } }));
    ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    await eventually(
      () => events.length,
      (n) => n >= 4,
    );
    ws.close();
    expect(events.map((e) => e.error?.code ?? e.type)).toEqual([
      'transcription_session.created',
      'transcription_session.updated',
      'invalid_value',
      'input_audio_buffer_commit_empty',
    ]);
  });
});
